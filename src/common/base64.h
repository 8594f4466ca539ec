/* SPDX-License-Identifier: Apache-2.0
 *
 * base64.h - standard base64 (RFC 4648, with padding)
 *
 * Used where bytes that need not be UTF-8 travel in JSON strings (step
 * task output frames).
 */
#ifndef DROVER_COMMON_BASE64_H
#define DROVER_COMMON_BASE64_H

#include <stddef.h>

/* Encode 'len' bytes of 'data'.  Returns a new NUL-terminated string
 * (caller frees); aborts on out of memory like xzalloc.
 */
char *base64_encode(const void *data, size_t len);

/* Decode 's' into a new buffer (caller frees) and set *len.  Returns NULL
 * when 's' is not valid base64.
 */
unsigned char *base64_decode(const char *s, size_t *len);

/* Decode the first 'n' characters of 's' in the URL-safe alphabet without
 * padding (RFC 4648 section 5; a JWT's segments) into a new NUL-terminated
 * buffer (caller frees) and set *len (without the NUL).  NULL when it is
 * not valid or longer than 64 KiB. */
unsigned char *base64url_decode(const char *s, size_t n, size_t *len);

#endif /* !DROVER_COMMON_BASE64_H */
