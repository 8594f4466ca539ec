/* SPDX-License-Identifier: Apache-2.0
 *
 * tls_dl.c - libssl loaded when TLS is first used (tls_dl.h)
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#include "common/dl.h"
#include "proto/tls.h"
#include "proto/tls_dl.h"

struct tls_dl tls_dl;

#define SYM(name) DL_SYMBOL(struct tls_dl, name)

static const struct dl_symbol symbols[] = {
    SYM(TLS_client_method), SYM(TLS_server_method), SYM(SSL_CTX_new),
    SYM(SSL_CTX_free), SYM(SSL_CTX_ctrl),
    SYM(SSL_CTX_set_options), SYM(SSL_CTX_set_num_tickets),
    SYM(SSL_CTX_set_verify), SYM(SSL_CTX_use_certificate_chain_file),
    SYM(SSL_CTX_use_PrivateKey_file), SYM(SSL_CTX_check_private_key),
    SYM(SSL_CTX_load_verify_locations), SYM(SSL_new), SYM(SSL_free),
    SYM(SSL_set_bio), SYM(SSL_set_connect_state), SYM(SSL_set_accept_state),
    SYM(SSL_do_handshake), SYM(SSL_is_init_finished), SYM(SSL_read),
    SYM(SSL_write), SYM(SSL_get_error), SYM(SSL_get_verify_result),
    SYM(SSL_get0_param), SYM(SSL_set1_host), SYM(BIO_new), SYM(BIO_s_mem),
    SYM(BIO_free), SYM(BIO_read), SYM(BIO_write), SYM(BIO_ctrl_pending),
    SYM(X509_VERIFY_PARAM_set1_ip_asc), SYM(X509_verify_cert_error_string),
    SYM(ERR_get_error), SYM(ERR_clear_error), SYM(ERR_reason_error_string),
};

/* every member of struct tls_dl is in the table */
_Static_assert(sizeof(symbols) / sizeof(symbols[0])
                   == sizeof(struct tls_dl) / sizeof(void (*)(void)),
               "tls_dl: a function without its symbol");

int tls_dl_load(drv_error_t *error)
{
    static void *lib;
    drv_error_t why = {{0}};

    /* libcrypto comes in as libssl's dependency; dlsym() on libssl's
     * handle finds its functions too. */
    if (dl_load(&lib, PROTO_TLS_LIB, RTLD_NOW | RTLD_LOCAL, symbols,
                sizeof(symbols) / sizeof(symbols[0]), &tls_dl, &why) == 0)
        return 0;
    errno = ENOENT;
    return errprintf(error, "TLS (CommunicationParameters=drover_tls_rpc) "
                     "needs OpenSSL 3: %s", why.text);
}
