/* SPDX-License-Identifier: Apache-2.0
 *
 * tls_dl.h - the OpenSSL functions the TLS engine calls, loaded with
 * dlopen() (tls_dl.c; private to tls.c)
 *
 * OpenSSL's headers give the types and constants; the functions are
 * reached only through 'tls_dl', so no libssl symbol is linked.
 */
#ifndef DROVER_PROTO_TLS_DL_H
#define DROVER_PROTO_TLS_DL_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "common/error.h"

#define TLS_DL_FN(name) __typeof__(name) *name

/* Each member is named for the function it points to. */
struct tls_dl {
    TLS_DL_FN(TLS_client_method);
    TLS_DL_FN(TLS_server_method);
    TLS_DL_FN(SSL_CTX_new);
    TLS_DL_FN(SSL_CTX_free);
    TLS_DL_FN(SSL_CTX_ctrl);
    TLS_DL_FN(SSL_CTX_set_options);
    TLS_DL_FN(SSL_CTX_set_num_tickets);
    TLS_DL_FN(SSL_CTX_set_verify);
    TLS_DL_FN(SSL_CTX_use_certificate_chain_file);
    TLS_DL_FN(SSL_CTX_use_PrivateKey_file);
    TLS_DL_FN(SSL_CTX_check_private_key);
    TLS_DL_FN(SSL_CTX_load_verify_locations);
    TLS_DL_FN(SSL_new);
    TLS_DL_FN(SSL_free);
    TLS_DL_FN(SSL_set_bio);
    TLS_DL_FN(SSL_set_connect_state);
    TLS_DL_FN(SSL_set_accept_state);
    TLS_DL_FN(SSL_do_handshake);
    TLS_DL_FN(SSL_is_init_finished);
    TLS_DL_FN(SSL_read);
    TLS_DL_FN(SSL_write);
    TLS_DL_FN(SSL_get_error);
    TLS_DL_FN(SSL_get_verify_result);
    TLS_DL_FN(SSL_get0_param);
    TLS_DL_FN(SSL_set1_host);
    TLS_DL_FN(BIO_new);
    TLS_DL_FN(BIO_s_mem);
    TLS_DL_FN(BIO_free);
    TLS_DL_FN(BIO_read);
    TLS_DL_FN(BIO_write);
    TLS_DL_FN(BIO_ctrl_pending);
    TLS_DL_FN(X509_VERIFY_PARAM_set1_ip_asc);
    TLS_DL_FN(X509_verify_cert_error_string);
    TLS_DL_FN(ERR_get_error);
    TLS_DL_FN(ERR_clear_error);
    TLS_DL_FN(ERR_reason_error_string);
};

extern struct tls_dl tls_dl;

/* Load PROTO_TLS_LIB into 'tls_dl' (once).  Returns 0, or -1 with errno
 * ENOENT and 'error' naming the library or the symbol it lacks. */
int tls_dl_load(drv_error_t *error);

#endif /* !DROVER_PROTO_TLS_DL_H */
