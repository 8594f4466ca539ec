/* SPDX-License-Identifier: Apache-2.0
 *
 * usage.c - a process's wait4() usage as the controller's reports carry
 * it (batch scripts in droverd, step tasks in droverstepd)
 */
#include <sys/resource.h>

#include "noded/noded.h"

void usage_to_json(const struct rusage *ru, int task, json_t *o)
{
    json_object_set_new(o, "max_rss_kib", json_integer(ru->ru_maxrss));
    json_object_set_new(o, "max_rss_task", json_integer(task));
    json_object_set_new(o, "user_cpu_us",
                        json_integer((json_int_t)ru->ru_utime.tv_sec * 1000000
                                     + ru->ru_utime.tv_usec));
    json_object_set_new(o, "sys_cpu_us",
                        json_integer((json_int_t)ru->ru_stime.tv_sec * 1000000
                                     + ru->ru_stime.tv_usec));
}
