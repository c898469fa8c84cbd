/*
 * render/sheet: contact sheets, a grid of equal rendered cells with a label
 * strip under each (frame times, view names).
 */
#include <marionette/render.h>

#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LABEL_SCALE_MIN_CELL 256u   /* cells at least this wide get the font at scale 2 */

mn_status mn_sheet_create(uint32_t count, uint32_t cell_width, uint32_t cell_height,
                          const uint8_t background[4], const mn_allocator *allocator,
                          mn_sheet *out, mn_error *err)
{
    if (!out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "sheet: NULL out");
    memset(out, 0, sizeof *out);
    if (count == 0 || cell_width == 0 || cell_height == 0)
        return mni_fail(err, MN_INVALID_ARGUMENT, "sheet: %u cells of %ux%u: nothing to lay out",
                        count, cell_width, cell_height);
    uint32_t columns = (uint32_t)ceil(sqrt((double)count));
    while ((uint64_t)columns * columns < count)   /* sqrt rounding on huge counts */
        columns++;
    uint32_t rows = (count + columns - 1) / columns;
    uint32_t label = mn_rgba_text_height(cell_width >= LABEL_SCALE_MIN_CELL ? 2 : 1) + 4;
    uint64_t w = (uint64_t)columns * cell_width;
    uint64_t h = (uint64_t)rows * ((uint64_t)cell_height + label);
    if (w > 32768u || h > 32768u)
        return mni_fail(err, MN_OVERFLOW,
                        "sheet: %u cells of %ux%u make a %llux%llu image (32768 at most)", count,
                        cell_width, cell_height, (unsigned long long)w, (unsigned long long)h);
    mn_status st = mn_rgba_image_create((uint32_t)w, (uint32_t)h, allocator, &out->image, err);
    if (st != MN_OK)
        return st;
    static const uint8_t transparent[4] = {0, 0, 0, 0};
    mn_rgba_image_fill(&out->image, background ? background : transparent);
    out->count = count;
    out->columns = columns;
    out->rows = rows;
    out->cell_width = cell_width;
    out->cell_height = cell_height;
    out->label_height = label;
    /* Labels must read on any background: dark ink on a light one. */
    const uint8_t *bg = background ? background : transparent;
    unsigned luma = (299u * bg[0] + 587u * bg[1] + 114u * bg[2]) / 1000u;
    uint8_t level = bg[3] >= 128 && luma >= 140 ? 30 : 235;
    memset(out->ink, level, 3);
    out->ink[3] = 255;
    return MN_OK;
}

void mn_sheet_put(mn_sheet *sheet, uint32_t index, const mn_rgba_image *cell, const char *label)
{
    if (!sheet || !cell || index >= sheet->count || cell->width != sheet->cell_width ||
        cell->height != sheet->cell_height)
        return;
    uint32_t col = index % sheet->columns, row = index / sheet->columns;
    int32_t x = (int32_t)(col * sheet->cell_width);
    int32_t y = (int32_t)(row * (sheet->cell_height + sheet->label_height));
    mn_rgba_image_blit(&sheet->image, cell, x, y);
    if (!label || !*label)
        return;
    uint32_t scale = sheet->cell_width >= LABEL_SCALE_MIN_CELL ? 2 : 1;
    /* Cut a long label to what fits the cell; centre the rest. */
    char text[128];
    size_t fit = sheet->cell_width / mn_rgba_text_width("x", scale);
    snprintf(text, fit + 1 < sizeof text ? fit + 1 : sizeof text, "%s", label);
    uint32_t tw = mn_rgba_text_width(text, scale);
    mn_rgba_image_text(&sheet->image, x + (int32_t)((sheet->cell_width - tw) / 2),
                       y + (int32_t)sheet->cell_height + 2, scale, sheet->ink, text);
}

void mn_sheet_free(mn_sheet *sheet)
{
    if (!sheet)
        return;
    mn_rgba_image_free(&sheet->image);
    memset(sheet, 0, sizeof *sheet);
}
