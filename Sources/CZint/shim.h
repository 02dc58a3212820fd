#include <zint.h>

/* zint_symbol's fixed arrays read as C reads them. Swift imports them as tuples
 * (`encoded_data` is 200 tuples of 144 bytes), and touching them from Swift instantiates that
 * tuple's type metadata at run time: ~10 M instructions, a sixth of a one-shot render. */

/* Row `row` of the encoded modules (bit `c & 7` of byte `c >> 3` is module `c`). */
static inline const unsigned char *receipt_zint_row(const struct zint_symbol *symbol, int row) {
    return symbol->encoded_data[row];
}

/* The height of row `row`, in modules (0: stretch to the symbol's height). */
static inline float receipt_zint_row_height(const struct zint_symbol *symbol, int row) {
    return symbol->row_height[row];
}

/* The human-readable text (UTF-8, NUL-terminated). */
static inline const unsigned char *receipt_zint_text(const struct zint_symbol *symbol) {
    return symbol->text;
}

/* The error message of the last call (NUL-terminated). */
static inline const char *receipt_zint_error(const struct zint_symbol *symbol) {
    return symbol->errtxt;
}
