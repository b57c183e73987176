/*
 * server/auth.c -- who may write (request.h): PUT and DELETE /tables need the bearer token when
 * one is configured (--write-token-file, POSENC_TOKEN); without one, writes are refused on a
 * listen address other than loopback unless --allow-unauthenticated-writes is given.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "server/request.h"

int srv_bind_is_loopback(const char *bind)
{
    struct in_addr a;
    if (inet_pton(AF_INET, bind, &a) != 1)
        return 0;
    return (ntohl(a.s_addr) >> 24) == 127;
}

int srv_writes_open(const srv_config *cfg)
{
    return cfg->write_token[0] != '\0' || cfg->allow_unauthenticated_writes ||
           srv_bind_is_loopback(cfg->bind);
}

int srv_token_equal(const char *given, size_t given_len, const char *token)
{
    size_t n = strlen(token);
    /* every byte of the token is compared whatever the input, so that the time taken tells
     * nothing about how much of a guess was right */
    unsigned diff = (unsigned)(given_len ^ n);
    for (size_t i = 0; i < n; i++) {
        unsigned char g = i < given_len ? (unsigned char)given[i] : 0;
        diff |= (unsigned)(g ^ (unsigned char)token[i]);
    }
    return diff == 0;
}

int srv_write_allowed(srv_ctx *ctx, struct MHD_Connection *c, srv_req *rq, enum MHD_Result *answer)
{
    const srv_config *cfg = ctx->cfg;
    if (cfg->write_token[0] == '\0') {
        if (srv_writes_open(cfg))
            return 1;
        char d[320];
        snprintf(d, sizeof d,
                 "writes are disabled: the server listens on %s (not loopback) without a write "
                 "token; configure one (--write-token-file or POSENC_TOKEN) or start it with "
                 "--allow-unauthenticated-writes",
                 cfg->bind);
        *answer = srv_send_problem(ctx, c, rq, API_PB_FORBIDDEN, d, NULL);
        return 0;
    }
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    const char *why = "this write needs Authorization: Bearer <token>";
    if (h != NULL) {
        if (strncasecmp(h, "Bearer ", 7) == 0) {
            const char *t = h + 7;
            while (*t == ' ')
                t++;
            size_t n = strlen(t);
            while (n > 0 && t[n - 1] == ' ')
                n--;
            if (srv_token_equal(t, n, cfg->write_token))
                return 1;
            why = "the bearer token is not the write token";
        } else {
            why = "Authorization must use the Bearer scheme";
        }
    }
    *answer = srv_send_problem_hdr(ctx, c, rq, API_PB_UNAUTHORIZED, why, "WWW-Authenticate",
                                   "Bearer realm=\"posenc\"");
    return 0;
}
