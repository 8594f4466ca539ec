/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_value.c - value parsers shared by the slurm.conf and gres.conf
 * tables, and the name index used to find nodes
 *
 * Parsers return 0 or -1 and write no message: the caller knows the file,
 * line and keyword, and names them all in one message.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/sizefmt.h"
#include "conf/conf_private.h"

int conf__parse_u64(const char *s, uint64_t *out)
{
    unsigned long long v;
    char *end;

    if (!isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

int conf__parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;

    if (conf__parse_u64(s, &v) < 0 || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int conf__parse_bool(const char *s, bool *out)
{
    static const struct {
        const char *name;
        bool value;
    } words[] = {
        { "yes", true }, { "no", false }, { "true", true },
        { "false", false }, { "1", true }, { "0", false },
    };

    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (!strcasecmp(s, words[i].name)) {
            *out = words[i].value;
            return 0;
        }
    }
    return -1;
}

/* Slurm's RealMemory is plain MiB; sizes such as "16G" are our extension. */
int conf__parse_mib(const char *s, uint64_t *mib)
{
    if (conf__parse_u64(s, mib) == 0)
        return 0;
    if (!isdigit((unsigned char)s[0]))
        return -1;
    return sizefmt_parse_mib(s, mib, NULL);
}

static int parse_port(const char *s, size_t n, uint32_t *port)
{
    char buf[16];

    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (conf__parse_u32(buf, port) < 0 || *port == 0 || *port > 65535)
        return -1;
    return 0;
}

/* One "N" or "N-M" item of a port list, appended to *ports. */
static int add_port_range(const char *s, size_t n, uint16_t **ports,
                          size_t *count)
{
    const char *dash = memchr(s, '-', n);
    uint32_t lo, hi;
    uint16_t *p;

    if (parse_port(s, dash ? (size_t)(dash - s) : n, &lo) < 0)
        goto inval;
    hi = lo;
    if (dash && parse_port(dash + 1, n - (size_t)(dash + 1 - s), &hi) < 0)
        goto inval;
    if (hi < lo || *count + (hi - lo + 1) > 65535)
        goto inval;
    if (!(p = realloc(*ports, (*count + hi - lo + 1) * sizeof(*p))))
        return -1;
    *ports = p;
    for (uint32_t port = lo; port <= hi; port++)
        p[(*count)++] = (uint16_t)port;
    return 0;
inval:
    errno = EINVAL;
    return -1;
}

int conf__parse_ports(const char *s, uint16_t **ports, size_t *count)
{
    size_t n = strlen(s);
    int saved_errno;

    *ports = NULL;
    *count = 0;
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
        s++;
        n -= 2;
    }
    while (n > 0) {
        const char *comma = memchr(s, ',', n);
        size_t item = comma ? (size_t)(comma - s) : n;

        if (add_port_range(s, item, ports, count) < 0)
            goto error;
        s += item + (comma ? 1 : 0);
        n -= item + (comma ? 1 : 0);
        if (comma && n == 0)
            goto inval;
    }
    if (*count == 0)
        goto inval;
    return 0;
inval:
    errno = EINVAL;
error:
    saved_errno = errno;
    free(*ports);
    *ports = NULL;
    *count = 0;
    errno = saved_errno;
    return -1;
}

int conf__each_item(struct slurm_conf *conf, const char *list,
                    int (*one)(struct slurm_conf *conf, const char *item,
                               drv_error_t *error),
                    drv_error_t *error)
{
    char *copy, *item, *save = NULL;
    int rc = 0;

    if (!list)
        return 0;
    if (!(copy = strdup(list)))
        return conf__enomem(error);
    for (item = strtok_r(copy, ",", &save); item && rc == 0;
         item = strtok_r(NULL, ",", &save))
        rc = one(conf, item, error);
    free(copy);
    return rc;
}
