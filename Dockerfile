# syntax=docker/dockerfile:1
# The API as an image: compiled in one stage with the dev dependencies, run in another with the
# production dependencies only. No secret is baked in: every setting comes from the environment
# at run time (docker-compose.yml reads .env). README, "Operations".

# ---- build: TypeScript to dist/ ----
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: compiling needs none of them (and mongodb-memory-server's would download MongoDB).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# ---- runtime: production dependencies and the compiled code, run as the unprivileged `node` user ----
FROM node:24-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts stay on here: bcrypt's picks its prebuilt native binary (glibc, x64 or arm64).
# The requires afterwards fail the build, not the first request, if a native binary cannot load.
# Likewise sharp (banner decoding), whose prebuilt libvips arrives as an optional dependency.
# Source maps, TypeScript sources and declarations, and Markdown are never loaded by node: pruned in
# this same layer, they take 28 MiB off the image (docs/container-check.md).
RUN npm ci --omit=dev --no-audit --no-fund \
    && find node_modules -type f \( -name '*.map' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.md' \) -delete \
    && node -e "require('bcrypt'); require('sharp')" \
    && npm cache clean --force
COPY --from=build /app/dist ./dist
# Banners when Cloudinary is not configured (UPLOADS_DIR, default uploads/): writable by the app user.
RUN mkdir -p /app/uploads && chown node:node /app/uploads
USER node
EXPOSE 3000
# Readiness, not mere liveness: MongoDB (and Redis when configured) must answer. Node's own fetch,
# as the slim image has no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node directly, not npm: the process must receive SIGTERM itself to drain (src/server.ts).
CMD ["node", "dist/server.js"]
