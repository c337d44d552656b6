# Meeting coordination service: GraphQL on Express/Apollo, MikroORM on PostgreSQL.
#
#   docker build -t meeting-api .
#   docker run --rm -p 8000:8000 \
#     -e DATABASE_URL=postgres://user:pass@host:5432/meetings \
#     -e JWT_SECRET=<a long random string> meeting-api
#
# Without DATABASE_URL the service runs its embedded PostgreSQL server on /app/data, which is a
# volume: give it a named one, or the data goes with the container:
#
#   docker run -p 8000:8000 -v meeting-data:/app/data -e JWT_SECRET=<...> meeting-api
# Migrations run automatically at start (PostgreSQL needs the pg_trgm extension).

# Node 26: the active LTS (the service also runs on 24, in maintenance, and on 22.18+ until 22's
# end of life on 2027-04-30; Node 20 reached its end of life).
ARG NODE_IMAGE=node:26-bookworm-slim

# ---- Stage 1: install every dependency, compile TypeScript, bundle the browser assets ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app

# Dependencies first, so this layer is reused until the lockfile changes. The browser code
# (GraphiQL, React, Monaco, Swagger UI) and esbuild are devDependencies: only this stage has them.
# .npmrc makes npm refuse a Node outside engines.node (engine-strict).
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund

# Sources: tsconfig*.json, scripts/, src/, rest/, ide/, schema/ (.dockerignore keeps out the rest).
# The build script compiles src/ and rest/, copies rest/operations/*.graphql, which the REST
# facade reads at start-up, into dist/rest/operations, and makes dist/assets: the GraphiQL page
# bundled by esbuild from ide/ (with Monaco's workers) and Swagger UI's files (scripts/build-assets.cjs).
COPY . .
RUN npm run build

# ---- Stage 2: production dependencies and built output only ---------------
# dist/ carries everything the pages load (dist/assets): no browser package is installed here.
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000

COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund \
    && npm cache clean --force

COPY --from=build /app/dist ./dist
COPY --from=build /app/schema ./schema

# The embedded database lives in ./data (DATA_DIR); the app user (not root, which PostgreSQL
# refuses) must own it.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME /app/data

USER node
EXPOSE 8000

# Readiness: 204 when the database answers, 503 otherwise or while shutting down.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/health/readiness', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.status === 204 ? 0 : 1), () => process.exit(1))"]

# node runs with the flags of package.json's nodeFlags (as `npm start` does), and `exec`
# makes it PID 1, so it receives SIGTERM itself (graceful shutdown in src/main.ts).
CMD ["sh", "-c", "exec node $(node -p \"require('./package.json').nodeFlags\") dist/src/main.js"]
