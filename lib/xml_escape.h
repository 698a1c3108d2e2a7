/* xml_escape.h: text for XML (the SVG charts of the simulator and of kubectl-dagsched): & < > "
 * written as entities, control bytes dropped, cut at a character boundary (never inside an
 * entity) when the buffer is too small. */
#ifndef DAGSCHED_XML_ESCAPE_H
#define DAGSCHED_XML_ESCAPE_H

#include <stddef.h>

/* Write s escaped into buf (size > 0, always NUL-terminated) and return buf. NULL s: "". */
const char *ds_xml_escape(const char *s, char *buf, size_t size);

#endif
