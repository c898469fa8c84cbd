/* Lay rendered images out as one labelled contact sheet (scripts/contact-sheet renders each
   sample model variant with `marionette render` and passes the PNGs here). */
#include <marionette/marionette.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 4 || argc % 2 != 0) {
        fprintf(stderr, "usage: %s OUT.png CELL.png LABEL [CELL.png LABEL ...]\n"
                        "(every cell the size of the first)\n", argv[0]);
        return 2;
    }
    uint32_t count = (uint32_t)(argc - 2) / 2;
    mn_error err;
    mn_rgba_image cell = {0};
    mn_sheet sheet = {0};
    static const uint8_t background[4] = {40, 44, 52, 255};
    int rc = 0;
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        const char *path = argv[2 + 2 * i], *label = argv[3 + 2 * i];
        if (mn_rgba_image_read_file(path, NULL, &cell, &err) != MN_OK) {
            fprintf(stderr, "%s: %s\n", path, err.message);
            rc = 1;
            break;
        }
        /* The first cell sets the size; a cell of another size would be left out silently. */
        if (i == 0 && mn_sheet_create(count, cell.width, cell.height, background, NULL, &sheet, &err) != MN_OK) {
            fprintf(stderr, "sheet: %s\n", err.message);
            rc = 1;
        } else if (cell.width != sheet.cell_width || cell.height != sheet.cell_height) {
            fprintf(stderr, "%s: %ux%u, not the first cell's %ux%u\n", path, cell.width, cell.height,
                    sheet.cell_width, sheet.cell_height);
            rc = 1;
        } else {
            mn_sheet_put(&sheet, i, &cell, label);
        }
        mn_rgba_image_free(&cell);
    }
    if (rc == 0 && mn_rgba_image_write_png(&sheet.image, argv[1], &err) != MN_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], err.message);
        rc = 1;
    }
    if (rc == 0)
        printf("%s: %u cells, %ux%u\n", argv[1], count, sheet.image.width, sheet.image.height);
    mn_sheet_free(&sheet);
    return rc;
}
