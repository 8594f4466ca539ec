/* SPDX-License-Identifier: Apache-2.0
 *
 * fuzz_swf.c - one line of a Standard Workload Format trace (drover-sim)
 */
#include "fuzz.h"

#include "sim/swf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct swf_job job;
    char *line = fuzz_string(data, size);

    (void)swf_parse_line(line, size % 2 ? SWF_PROCS_REQUESTED
                                        : SWF_PROCS_ALLOCATED, &job);
    free(line);
    return 0;
}
