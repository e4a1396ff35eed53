# shopsync container: a long-lived daemon beside the ERP (docs/operations.md, "Container").
#   docker build -t shopsync .        (buildah/podman: add --format docker, or HEALTHCHECK is dropped)
#   docker run -v $PWD/shopsync.yaml:/app/shopsync.yaml:ro -v shopsync-state:/app/state \
#     -e SHOP_TOKEN=… shopsync
# The config is read from /app/shopsync.yaml (SHOPSYNC_CONFIG); state lives in the /app/state volume.
# Built and run by `npm run test:container` (test/container/image.test.ts).

# ---- build: full dependencies (TypeScript, node-gyp toolchain for better-sqlite3) ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Scripts off: `prepare` would run tsc before the sources are here. Native modules are built next.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
# better-sqlite3 needs only its compiled addon at run time: its SQLite sources and object files
# (about 26 MB) stay behind.
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && cd node_modules/better-sqlite3 \
 && rm -rf deps src build/Release/obj build/Release/obj.target build/Release/.deps build/Release/test_extension.node build/Release/sqlite3.a build/deps

# ---- runtime: production dependencies (with the compiled better-sqlite3) and dist only ----
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    SHOPSYNC_CONFIG=/app/shopsync.yaml \
    SHOPSYNC_HEALTH_URL=http://127.0.0.1:8080/healthz
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/cli ./dist/cli
COPY package.json shopsync.example.yaml ./
COPY bin ./bin
COPY mappings ./mappings
# The JSON Schemas that `shopsync init` and the example config point editors at, and the docs the
# CLI's messages name (docs/*.md; .dockerignore leaves the screenshots out).
COPY schemas ./schemas
COPY docs ./docs
RUN chmod 0755 bin/shopsync.js \
 && ln -s /app/bin/shopsync.js /usr/local/bin/shopsync \
 && mkdir -p /app/state \
 && chown node:node /app/state
# The image's own unprivileged user (uid 1000); nothing under /app but state/ is writable.
USER node
VOLUME ["/app/state"]
EXPOSE 8080
# /healthz is served on dashboard.host:dashboard.port; point SHOPSYNC_HEALTH_URL elsewhere if you change the port.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.SHOPSYNC_HEALTH_URL).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["shopsync", "run"]
