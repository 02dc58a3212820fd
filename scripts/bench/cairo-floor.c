/* The floor for `receipt render`'s PDFs (issue 54): the same pages written by a minimal cairo
 * program. Each input file is one receipt as receipt's painter drew it, call by call
 * (`receipt-bench record`, the recording in ReceiptRender/PaintRecording.swift): the same glyphs
 * at the same positions with the same text and cluster maps, the same rules, images and barcode
 * masks, one cairo call where receipt made one. Everything is read, every font opened and every
 * image decoded before the clock starts; then each receipt is written to its own PDF file, as a
 * batch of receipt writes them, and the time per receipt is printed (seconds, to stdout).
 *
 *   cairo-floor OUTDIR FILE...
 *
 * Linked with receipt's CDeflateLevel (zlib's fastest level for cairo's streams, as the shipped
 * binaries), so both compress alike. Built by scripts/bench-batch.py with cc and pkg-config. */
#include <cairo-ft.h>
#include <cairo-pdf.h>
#include <cairo.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum kind { PAGE, TEXT, RECT, BARS, STROKE, IMAGE, MASK };

typedef struct {
  enum kind kind;
  int ink, backward;
  double a[6];
  int nglyphs, nclusters, nbytes;
  cairo_glyph_t *glyphs;
  cairo_text_cluster_t *clusters;
  char *text;
  cairo_font_face_t *face;
  double *rects; /* bars: x, y, width, height each */
  cairo_surface_t *surface;
} op_t;

typedef struct {
  op_t *ops;
  int count;
  char title[256];
} receipt_t;

static FT_Library library;
static struct { char path[1024]; int index, bold, oblique, color; cairo_font_face_t *face; } fonts[256];
static int nfonts;

static void die(const char *what, const char *where) {
  fprintf(stderr, "cairo-floor: %s: %s\n", what, where);
  exit(1);
}

static cairo_font_face_t *font(const char *path, int index, int bold, int oblique, int color) {
  for (int i = 0; i < nfonts; i++)
    if (!strcmp(fonts[i].path, path) && fonts[i].index == index && fonts[i].bold == bold &&
        fonts[i].oblique == oblique)
      return fonts[i].face;
  if (nfonts == 256) die("too many fonts", path);
  FT_Face face;
  if (FT_New_Face(library, path, index, &face)) die("cannot open the font", path);
  cairo_font_face_t *cf =
      cairo_ft_font_face_create_for_ft_face(face, FT_LOAD_NO_HINTING | (color ? FT_LOAD_COLOR : 0));
  unsigned synth = (bold ? CAIRO_FT_SYNTHESIZE_BOLD : 0) | (oblique ? CAIRO_FT_SYNTHESIZE_OBLIQUE : 0);
  if (synth) cairo_ft_font_face_set_synthesize(cf, synth);
  snprintf(fonts[nfonts].path, sizeof fonts[nfonts].path, "%s", path);
  fonts[nfonts].index = index, fonts[nfonts].bold = bold, fonts[nfonts].oblique = oblique;
  fonts[nfonts].face = cf;
  return fonts[nfonts++].face;
}

/* A P5 (gray) or P4 (1-bit) netpbm file as an RGB24 or A1 surface. */
static cairo_surface_t *image(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot open the image", path);
  char magic[3] = {0};
  int w, h, max = 1;
  if (fscanf(f, "%2s %d %d", magic, &w, &h) != 3) die("not a netpbm image", path);
  if (!strcmp(magic, "P5") && fscanf(f, "%d", &max) != 1) die("no maximum", path);
  fgetc(f);
  int gray = !strcmp(magic, "P5");
  cairo_surface_t *s = cairo_image_surface_create(gray ? CAIRO_FORMAT_RGB24 : CAIRO_FORMAT_A1, w, h);
  unsigned char *data = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < h; y++) {
    uint32_t *row = (uint32_t *)(data + y * stride);
    if (gray) {
      for (int x = 0; x < w; x++) {
        uint32_t v = (uint32_t)fgetc(f);
        row[x] = v << 16 | v << 8 | v;
      }
    } else {
      memset(row, 0, stride);
      for (int x = 0; x < w; x += 8) {
        int byte = fgetc(f);
        for (int b = 0; b < 8 && x + b < w; b++)
          if (byte & (0x80 >> b)) row[(x + b) >> 5] |= 1u << ((x + b) & 31); /* little-endian A1 */
      }
    }
  }
  fclose(f);
  cairo_surface_mark_dirty(s);
  return s;
}

static receipt_t load(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) die("cannot open", path);
  receipt_t r = {0};
  int capacity = 0;
  char word[16], name[1024];
  if (fscanf(f, "title %255[^\n]\n", r.title) != 1) die("no title", path);
  while (fscanf(f, "%15s", word) == 1) {
    if (r.count == capacity) r.ops = realloc(r.ops, sizeof(op_t) * (capacity = capacity * 2 + 64));
    op_t *op = &r.ops[r.count++];
    memset(op, 0, sizeof *op);
    if (!strcmp(word, "page")) {
      op->kind = PAGE;
      if (fscanf(f, "%lf %lf", &op->a[0], &op->a[1]) != 2) die("bad page", path);
    } else if (!strcmp(word, "text")) {
      int index, bold, oblique, color;
      op->kind = TEXT;
      if (fscanf(f, " %1023s %d %d %d %d %lf %lf %d %d %d %d %d", name, &index, &bold, &oblique, &color, &op->a[0],
                 &op->a[1], &op->ink, &op->backward, &op->nglyphs, &op->nclusters, &op->nbytes) != 12)
        die("bad text", path);
      op->face = font(name, index, bold, oblique, color);
      op->glyphs = malloc(sizeof(cairo_glyph_t) * (op->nglyphs + 1));
      for (int i = 0; i < op->nglyphs; i++)
        if (fscanf(f, "%lu %lf %lf", &op->glyphs[i].index, &op->glyphs[i].x, &op->glyphs[i].y) != 3)
          die("bad glyph", path);
      op->clusters = malloc(sizeof(cairo_text_cluster_t) * (op->nclusters + 1));
      for (int i = 0; i < op->nclusters; i++)
        if (fscanf(f, "%d %d", &op->clusters[i].num_bytes, &op->clusters[i].num_glyphs) != 2) die("bad cluster", path);
      op->text = malloc(op->nbytes + 1);
      for (int i = 0; i < op->nbytes; i++) {
        unsigned v;
        if (fscanf(f, "%2x", &v) != 1) die("bad text bytes", path);
        op->text[i] = (char)v;
      }
    } else if (!strcmp(word, "rect") || !strcmp(word, "stroke")) {
      op->kind = word[0] == 'r' ? RECT : STROKE;
      if (fscanf(f, "%d %lf %lf %lf %lf %lf", &op->ink, &op->a[0], &op->a[1], &op->a[2], &op->a[3], &op->a[4]) != 6)
        die("bad shape", path);
    } else if (!strcmp(word, "bars")) {
      op->kind = BARS;
      if (fscanf(f, "%d %d", &op->ink, &op->nglyphs) != 2) die("bad bars", path);
      op->rects = malloc(sizeof(double) * 4 * (op->nglyphs + 1));
      for (int i = 0; i < 4 * op->nglyphs; i++)
        if (fscanf(f, "%lf", &op->rects[i]) != 1) die("bad bar", path);
    } else if (!strcmp(word, "image") || !strcmp(word, "mask")) {
      op->kind = word[0] == 'i' ? IMAGE : MASK;
      if (fscanf(f, " %1023s %lf %lf %lf %lf", name, &op->a[0], &op->a[1], &op->a[2], &op->a[3]) != 5)
        die("bad image", path);
      op->surface = image(name);
    } else {
      die("unknown call", word);
    }
  }
  fclose(f);
  return r;
}

static cairo_status_t to_file(void *closure, const unsigned char *data, unsigned int length) {
  return fwrite(data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static void ink(cairo_t *cr, int white) { cairo_set_source_rgb(cr, white, white, white); }

static void write_pdf(const receipt_t *r, const char *path) {
  FILE *out = fopen(path, "wb");
  if (!out) die("cannot write", path);
  cairo_surface_t *pdf = cairo_pdf_surface_create_for_stream(to_file, out, r->ops[0].a[0], r->ops[0].a[1]);
  cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_TITLE, r->title);
  cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_CREATOR, "receipt");
  cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_CREATE_DATE, "2000-01-01T00:00:00Z");
  cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_MOD_DATE, "2000-01-01T00:00:00Z");
  cairo_t *cr = cairo_create(pdf);
  cairo_font_options_t *options = cairo_font_options_create();
  cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
  cairo_set_font_options(cr, options);
  cairo_font_options_destroy(options);
  for (int i = 0; i < r->count; i++) {
    const op_t *op = &r->ops[i];
    switch (op->kind) {
    case PAGE:
      if (i > 0) cairo_show_page(cr);
      cairo_pdf_surface_set_size(pdf, op->a[0], op->a[1]);
      ink(cr, 1);
      cairo_paint(cr);
      break;
    case TEXT: {
      cairo_matrix_t m;
      cairo_set_font_face(cr, op->face);
      cairo_matrix_init_scale(&m, op->a[0], op->a[1]);
      cairo_set_font_matrix(cr, &m);
      ink(cr, op->ink);
      cairo_show_text_glyphs(cr, op->text, op->nbytes, op->glyphs, op->nglyphs, op->clusters, op->nclusters,
                             op->backward ? CAIRO_TEXT_CLUSTER_FLAG_BACKWARD : 0);
      break;
    }
    case RECT:
      ink(cr, op->ink);
      cairo_rectangle(cr, op->a[0], op->a[1], op->a[2], op->a[3]);
      cairo_fill(cr);
      break;
    case BARS:
      ink(cr, op->ink);
      for (int b = 0; b < op->nglyphs; b++)
        cairo_rectangle(cr, op->rects[4 * b], op->rects[4 * b + 1], op->rects[4 * b + 2], op->rects[4 * b + 3]);
      cairo_fill(cr);
      break;
    case STROKE: {
      double dash[2] = {op->a[4], op->a[4]};
      cairo_save(cr);
      ink(cr, op->ink);
      cairo_set_dash(cr, dash, 2, 0);
      cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
      cairo_set_line_width(cr, op->a[3]);
      cairo_move_to(cr, op->a[0], op->a[1] + op->a[3] / 2);
      cairo_line_to(cr, op->a[0] + op->a[2], op->a[1] + op->a[3] / 2);
      cairo_stroke(cr);
      cairo_restore(cr);
      break;
    }
    case IMAGE:
      cairo_save(cr);
      cairo_translate(cr, op->a[0], op->a[1]);
      cairo_scale(cr, op->a[2] / cairo_image_surface_get_width(op->surface),
                  op->a[3] / cairo_image_surface_get_height(op->surface));
      cairo_set_source_surface(cr, op->surface, 0, 0);
      cairo_paint(cr);
      cairo_restore(cr);
      break;
    case MASK: {
      cairo_pattern_t *pattern = cairo_pattern_create_for_surface(op->surface);
      cairo_pattern_set_filter(pattern, CAIRO_FILTER_NEAREST);
      ink(cr, 0);
      cairo_save(cr);
      cairo_translate(cr, op->a[0], op->a[1]);
      cairo_scale(cr, op->a[2], op->a[3]);
      cairo_mask(cr, pattern);
      cairo_restore(cr);
      cairo_pattern_destroy(pattern);
      break;
    }
    }
  }
  cairo_show_page(cr);
  cairo_destroy(cr);
  cairo_surface_finish(pdf);
  if (cairo_surface_status(pdf) != CAIRO_STATUS_SUCCESS) die("cairo failed", path);
  cairo_surface_destroy(pdf);
  fclose(out);
}

int main(int argc, char **argv) {
  if (argc < 3) die("usage", "cairo-floor OUTDIR FILE...");
  if (FT_Init_FreeType(&library)) die("FreeType", "cannot start");
  int n = argc - 2;
  receipt_t *receipts = calloc(n, sizeof *receipts);
  for (int i = 0; i < n; i++) receipts[i] = load(argv[i + 2]);
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  char path[4096];
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%d.pdf", argv[1], i);
    write_pdf(&receipts[i], path);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  printf("%.9f\n", ((end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9) / n);
  return 0;
}
