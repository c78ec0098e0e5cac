# syntax=docker/dockerfile:1
# Presence: a multi-stage build. The runtime image holds the built packages and production
# dependencies only, runs as the unprivileged `node` user, and reports health from /readyz.
# Not built in this repository's CI (no container daemon there); see docs/operations.md.

FROM node:26-trixie-slim AS build
WORKDIR /app
# Toolchain for better-sqlite3 should no prebuilt binary match the platform.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages/contract/package.json packages/contract/
COPY packages/sdk/package.json packages/sdk/
COPY packages/server/package.json packages/server/
RUN npm ci
COPY packages/ packages/
RUN npm run build && npm prune --omit=dev

FROM node:26-trixie-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 PRESENCE_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules/ node_modules/
COPY --from=build /app/packages/contract/package.json packages/contract/
COPY --from=build /app/packages/contract/dist/ packages/contract/dist/
COPY --from=build /app/packages/sdk/package.json packages/sdk/
COPY --from=build /app/packages/sdk/dist/ packages/sdk/dist/
COPY --from=build /app/packages/server/package.json packages/server/
COPY --from=build /app/packages/server/dist/ packages/server/dist/
COPY --from=build /app/packages/server/src/portal/assets/ packages/server/src/portal/assets/
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM drains (docs/operations.md): keep the orchestrator's stop timeout above
# PRESENCE_SHUTDOWN_DELAY_MS + PRESENCE_SHUTDOWN_DRAIN_MS.
STOPSIGNAL SIGTERM
CMD ["node", "packages/server/dist/main.js"]
