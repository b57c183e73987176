# docker/nginx.Dockerfile -- nginx for docker/compose.yaml where the official nginx image cannot be
# pulled: Debian 12's nginx-light on any Debian 12 base (local/bookworm-minbase made with
# debootstrap, docs/operations.md). The configuration is mounted (docker/nginx.conf).
#   docker build --network host --build-arg BASE=local/bookworm-minbase -t local/nginx:bookworm \
#     - <docker/nginx.Dockerfile        (no build context needed)
ARG BASE=debian:bookworm-slim
FROM ${BASE}
# policy-rc.d: the package must not try to start nginx inside the build.
RUN printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx-light \
 && rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
