// ICU for receipt. ICU renames every entry point with its major version (ubrk_open -> ubrk_open_72)
// through macros Swift cannot import, and its type headers clash with the copy of ICU inside
// Swift's Foundation. So this shim includes only <unicode/uvernum.h> (macros, no types), declares
// the few versioned entry points receipt calls with ABI-identical plain C types, and re-exports
// them under stable `cicu_` names. Constants are ICU's stable public values.
#ifndef CICU_SHIM_H
#define CICU_SHIM_H
#include <stdint.h>
#include <unicode/uvernum.h>

#define CICU_(name) U_ICU_ENTRY_POINT_RENAME(name)

typedef struct CICUBreakIterator CICUBreakIterator;
typedef struct CICUBiDi CICUBiDi;

void CICU_(u_getVersion)(uint8_t *info);
const char *CICU_(u_errorName)(int code);
CICUBreakIterator *CICU_(ubrk_open)(int type, const char *locale, const uint16_t *text, int32_t length, int *status);
void CICU_(ubrk_close)(CICUBreakIterator *bi);
void CICU_(ubrk_setText)(CICUBreakIterator *bi, const uint16_t *text, int32_t length, int *status);
int32_t CICU_(ubrk_first)(CICUBreakIterator *bi);
int32_t CICU_(ubrk_next)(CICUBreakIterator *bi);
int32_t CICU_(ubrk_getRuleStatus)(CICUBreakIterator *bi);
CICUBiDi *CICU_(ubidi_open)(void);
void CICU_(ubidi_close)(CICUBiDi *b);
void CICU_(ubidi_setPara)(CICUBiDi *b, const uint16_t *text, int32_t length, uint8_t paraLevel, uint8_t *embeddingLevels, int *status);
const uint8_t *CICU_(ubidi_getLevels)(CICUBiDi *b, int *status);
uint8_t CICU_(ubidi_getParaLevel)(const CICUBiDi *b);
void CICU_(ubidi_reorderVisual)(const uint8_t *levels, int32_t length, int32_t *indexMap);
int CICU_(uscript_getScript)(int32_t c, int *status);
const char *CICU_(uscript_getShortName)(int code);
int8_t CICU_(u_hasBinaryProperty)(int32_t c, int which);
int CICU_(u_charDirection)(int32_t c);

enum {
  CICU_ZERO_ERROR = 0,
  CICU_UBRK_CHARACTER = 0,
  CICU_UBRK_LINE = 2,
  CICU_UBRK_DONE = -1,
  CICU_UBRK_LINE_HARD = 100,
  CICU_UCHAR_DEFAULT_IGNORABLE_CODE_POINT = 5,
  CICU_UCHAR_EMOJI_PRESENTATION = 58,
  CICU_UCHAR_EXTENDED_PICTOGRAPHIC = 64,
  CICU_USCRIPT_COMMON = 0,
  CICU_USCRIPT_INHERITED = 1,
  CICU_U_RIGHT_TO_LEFT = 1,
  CICU_U_RIGHT_TO_LEFT_ARABIC = 13,
};

static inline void cicu_getVersion(uint8_t *info) { CICU_(u_getVersion)(info); }
static inline const char *cicu_errorName(int code) { return CICU_(u_errorName)(code); }
static inline CICUBreakIterator *cicu_ubrk_open(int type, const char *locale, const uint16_t *text, int32_t length, int *status) {
  return CICU_(ubrk_open)(type, locale, text, length, status);
}
static inline void cicu_ubrk_setText(CICUBreakIterator *bi, const uint16_t *text, int32_t length, int *status) {
  CICU_(ubrk_setText)(bi, text, length, status);
}
static inline void cicu_ubrk_close(CICUBreakIterator *bi) { CICU_(ubrk_close)(bi); }
static inline int32_t cicu_ubrk_first(CICUBreakIterator *bi) { return CICU_(ubrk_first)(bi); }
static inline int32_t cicu_ubrk_next(CICUBreakIterator *bi) { return CICU_(ubrk_next)(bi); }
static inline int32_t cicu_ubrk_getRuleStatus(CICUBreakIterator *bi) { return CICU_(ubrk_getRuleStatus)(bi); }
static inline CICUBiDi *cicu_ubidi_open(void) { return CICU_(ubidi_open)(); }
static inline void cicu_ubidi_close(CICUBiDi *b) { CICU_(ubidi_close)(b); }
static inline void cicu_ubidi_setPara(CICUBiDi *b, const uint16_t *text, int32_t length, uint8_t level, int *status) {
  CICU_(ubidi_setPara)(b, text, length, level, 0, status);
}
static inline const uint8_t *cicu_ubidi_getLevels(CICUBiDi *b, int *status) { return CICU_(ubidi_getLevels)(b, status); }
static inline uint8_t cicu_ubidi_getParaLevel(const CICUBiDi *b) { return CICU_(ubidi_getParaLevel)(b); }
static inline void cicu_ubidi_reorderVisual(const uint8_t *levels, int32_t length, int32_t *map) {
  CICU_(ubidi_reorderVisual)(levels, length, map);
}
static inline int cicu_uscript_getScript(int32_t c, int *status) { return CICU_(uscript_getScript)(c, status); }
static inline const char *cicu_uscript_getShortName(int code) { return CICU_(uscript_getShortName)(code); }
static inline int cicu_hasBinaryProperty(int32_t c, int which) { return CICU_(u_hasBinaryProperty)(c, which); }
static inline int cicu_charDirection(int32_t c) { return CICU_(u_charDirection)(c); }
#endif
