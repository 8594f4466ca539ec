/* SPDX-License-Identifier: Apache-2.0
 *
 * gzip.c - answers compressed for the clients that ask (gzip.h)
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

#include "restd/gzip.h"

/* Is the parameter list 'p' (after the coding's ';', up to 'end')
 * q=0, q=0.0...? */
static bool q_is_zero(const char *p, const char *end)
{
    while (p < end) {
        while (p < end && (*p == ';' || isspace((unsigned char)*p)))
            p++;
        if (end - p >= 2 && tolower((unsigned char)p[0]) == 'q'
            && p[1] == '=') {
            p += 2;
            if (p == end || *p != '0')
                return false;
            for (p++; p < end && (*p == '.' || *p == '0'); p++)
                ;
            return p == end || *p == ';' || isspace((unsigned char)*p);
        }
        while (p < end && *p != ';')
            p++;
    }
    return false;
}

bool rest_accepts_gzip(const char *value)
{
    const char *p = value;

    while (p && *p) {
        const char *end = strchr(p, ','), *name, *name_end;

        if (!end)
            end = p + strlen(p);
        for (name = p; name < end && isspace((unsigned char)*name); name++)
            ;
        for (name_end = name;
             name_end < end && *name_end != ';'
             && !isspace((unsigned char)*name_end);
             name_end++)
            ;
        if (((name_end - name == 4 && !strncasecmp(name, "gzip", 4))
             || (name_end - name == 6 && !strncasecmp(name, "x-gzip", 6))
             || (name_end - name == 1 && *name == '*'))
            && !q_is_zero(name_end, end))
            return true;
        p = *end ? end + 1 : end;
    }
    return false;
}

char *rest_gzip(const char *data, size_t len, size_t *out_len)
{
    z_stream z = {0};
    uLong cap;
    char *out;

    /* windowBits 15 + 16: a gzip header and trailer around the deflate */
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)
        != Z_OK)
        return NULL;
    cap = deflateBound(&z, (uLong)len);
    if (!(out = malloc(cap))) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
        deflateEnd(&z);
        free(out);
        return NULL;
    }
    *out_len = z.total_out;
    deflateEnd(&z);
    return out;
}
