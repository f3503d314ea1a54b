# claim-hold: build with tsc, run the compiled App as a non-root user on Node 24 (bookworm slim).
# Build: docker build -t claim-hold .   Run: see compose.yaml and docs/deploy.md.
# BASE: any Debian-like image with Node 24 (22.12 at least), npm and a `node` user; the default is the
# Node that CI runs (scripts/use-node.sh), and scripts/docker-smoke.sh builds the same without a registry.
ARG BASE=node:24.22.3-bookworm-slim

FROM ${BASE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${BASE} AS runtime
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 LOG_FORMAT=json
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# app.yml for setup mode's manifest, and the two pages its setup page links to
COPY app.yml README.md ./
COPY docs/deploy.md ./docs/
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node itself as PID 1 (not npm): SIGTERM reaches the App, which drains and exits 0.
CMD ["node", "dist/main.js"]
