/* SPDX-License-Identifier: Apache-2.0
 *
 * event_record.h - the journal's record of an applied event (event.h)
 */
#ifndef DROVER_CTLD_EVENT_RECORD_H
#define DROVER_CTLD_EVENT_RECORD_H

#include <jansson.h>

struct ctld;
struct ctld_event;

/* The journal record of 'ev', which ctld_apply() has just applied (what
 * the event stole is read back from the tables).  New reference, NULL on
 * ENOMEM.
 */
json_t *event_record(struct ctld *ctld, const struct ctld_event *ev);

#endif /* !DROVER_CTLD_EVENT_RECORD_H */
