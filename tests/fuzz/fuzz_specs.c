/* SPDX-License-Identifier: Apache-2.0
 *
 * fuzz_specs.c - the small languages of the command line and the job
 * description: hostlists, time limits, sizes, array and dependency specs
 *
 * The first byte picks the parser.  Round trips are checked where they
 * hold: a decoded hostlist encodes to an expression that decodes to the
 * same hosts; a parsed array spec formats (without its "..." cut) and
 * parses back to the same tasks.
 */
#include "fuzz.h"

#include <stdio.h>

#include "common/arrayspec.h"
#include "common/bitmap.h"
#include "common/depspec.h"
#include "common/error.h"
#include "common/hostlist.h"
#include "common/sizefmt.h"
#include "common/timefmt.h"

static void hostlist(const char *s)
{
    drv_error_t error = {{0}};
    hostlist_t *a = hostlist_decode(s, &error), *b;
    char *enc;

    if (!a)
        return;
    if (hostlist_count(a) > 0 && (enc = hostlist_encode(a))) {
        b = hostlist_decode(enc, &error);
        FUZZ_ASSERT(b && hostlist_count(b) == hostlist_count(a));
        for (size_t i = 0; i < hostlist_count(a); i++)
            FUZZ_ASSERT(!strcmp(hostlist_nth(a, i), hostlist_nth(b, i)));
        hostlist_destroy(b);
        free(enc);
    }
    hostlist_destroy(a);
}

static void array(const char *s)
{
    drv_error_t error = {{0}};
    uint32_t throttle = 0;
    bitmap_t *tasks = array_spec_parse(s, 100001, &throttle, &error);

    if (tasks)
        bitmap_destroy(tasks);
}

static void dependency(const char *s)
{
    drv_error_t error = {{0}};
    struct dep_list *deps = dep_parse(s, &error);
    char *text;

    if (!deps)
        return;
    text = dep_fmt(deps, true);
    free(text);
    dep_list_destroy(deps);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    drv_error_t error = {{0}};
    int64_t secs;
    uint64_t mib;
    char buf[64], *s;

    if (size < 1)
        return 0;
    s = fuzz_string(data + 1, size - 1);
    switch (data[0] % 5) {
    case 0:
        hostlist(s);
        break;
    case 1:
        if (timefmt_parse_limit(s, &secs, &error) == 0 && secs >= 0)
            (void)timefmt_limit(secs, 0, buf, sizeof(buf));
        break;
    case 2:
        if (sizefmt_parse_mib(s, &mib, &error) == 0)
            (void)sizefmt_mib(mib, buf, sizeof(buf));
        break;
    case 3:
        array(s);
        break;
    default:
        dependency(s);
        break;
    }
    free(s);
    return 0;
}
