/* SPDX-License-Identifier: Apache-2.0
 *
 * sreport_window.c - an sreport report window (sreport_window.h)
 */
#include "cmd/lib/sreport_window.h"

time_t sreport_round_hour(time_t t)
{
    struct tm tm;

    localtime_r(&t, &tm);
    if (tm.tm_sec >= 30)
        tm.tm_min++;
    if (tm.tm_min >= 30)
        tm.tm_hour++;
    tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;
    return mktime(&tm);
}

void sreport_window(time_t *start, time_t *end, time_t now)
{
    time_t hour_end = now - now % 3600 + 3600;

    *end = sreport_round_hour(*end);
    *start = sreport_round_hour(*start);
    if (*end - *start < 3600)
        *end = *start + 3600;
    if (*end > hour_end && *start < hour_end)
        *end = hour_end;
}
