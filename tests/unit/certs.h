/* SPDX-License-Identifier: Apache-2.0
 *
 * certs.h - certificates for the TLS unit tests, made with the openssl
 * command (EC P-256 keys, valid two days)
 */
#ifndef DROVER_TESTS_CERTS_H
#define DROVER_TESTS_CERTS_H

/* Run the shell command printf'd from 'fmt'.  Returns system()'s status
 * (0: it succeeded). */
int certs_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* In directory 'dir': a self-signed CA, NAME.key and NAME.pem (CN=NAME).
 * Returns 0, or -1 when openssl failed. */
int certs_ca(const char *dir, const char *name);

/* In 'dir': NAME.pem for subjectAltName 'san' ("IP:127.0.0.1,DNS:x"),
 * signed by the CA 'ca' of certs_ca(), for the key KEY.key ('key'; made
 * first when it is not there yet).  Returns 0, or -1 when openssl
 * failed. */
int certs_issue(const char *dir, const char *ca, const char *name,
                const char *key, const char *san);

#endif /* !DROVER_TESTS_CERTS_H */
