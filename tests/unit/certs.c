/* SPDX-License-Identifier: Apache-2.0
 *
 * certs.c - certificates for the TLS unit tests (certs.h)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "certs.h"

#define EC "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"

int certs_sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    return system(cmd);
}

int certs_ca(const char *dir, const char *name)
{
    return certs_sh("cd '%s' && openssl req -x509 " EC " -days 2 -subj "
                    "/CN=%s -keyout %s.key -out %s.pem 2>/dev/null",
                    dir, name, name, name) == 0 ? 0 : -1;
}

int certs_issue(const char *dir, const char *ca, const char *name,
                const char *key, const char *san)
{
    return certs_sh("cd '%s' && { test -e %s.key || openssl genpkey "
                    "-algorithm ec -pkeyopt ec_paramgen_curve:prime256v1 "
                    "-out %s.key 2>/dev/null; } && "
                    "openssl req -new -key %s.key -subj /CN=%s "
                    "-out %s.csr 2>/dev/null && "
                    "printf 'subjectAltName=%s\\n' > %s.ext && "
                    "openssl x509 -req -in %s.csr -CA %s.pem -CAkey %s.key "
                    "-CAcreateserial -days 2 -extfile %s.ext -out %s.pem "
                    "2>/dev/null",
                    dir, key, key, key, name, name, san, name, name, ca, ca,
                    name, name) == 0 ? 0 : -1;
}
