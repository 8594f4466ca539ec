/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_tls.h - the TLS settings of CommunicationParameters=, as
 * slurm.conf and slurmdbd.conf both read them (conf_comm_params.c)
 */
#ifndef DROVER_CONF_TLS_H
#define DROVER_CONF_TLS_H

#include <stdbool.h>

struct conf_tls {
    char *cert, *key; /* drover_tls_cert=, drover_tls_key=: PEM files;
                       * both NULL: no TLS (REST and RPC) */
    char *ca;         /* drover_tls_ca=: the PEM CA bundle RPC clients
                       * verify servers against */
    bool rpc;         /* drover_tls_rpc: the RPC protocol runs over TLS
                       * (cert, key and ca set) */
};

/* Free the paths of 'tls' and zero it.  NULL-safe members. */
void conf_tls_clear(struct conf_tls *tls);

#endif /* !DROVER_CONF_TLS_H */
