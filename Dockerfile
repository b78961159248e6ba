# reconcile-shadow sidecar image.
#   docker build -t reconcile-shadow .
# Stage 1 compiles the TypeScript with every dependency; stage 2 installs production dependencies only; the final
# stage carries the compiled code, those dependencies and the built-in models, owned by root and read-only to the
# non-root user it runs as, so it works with readOnlyRootFilesystem (nothing is written at run time; /tmp is an
# emptyDir in the manifests) and under OpenShift's arbitrary UIDs.

FROM node:24.22.3-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY lib ./lib
COPY analyzer ./analyzer
COPY collector ./collector
COPY model ./model
COPY cli ./cli
COPY simulator ./simulator
COPY sidecar ./sidecar
COPY outputs ./outputs
COPY dashboards ./dashboards
COPY alerts ./alerts
COPY deploy ./deploy
RUN npx tsc -p tsconfig.build.json

FROM node:24.22.3-bookworm-slim AS production-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force

FROM node:24.22.3-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=production-deps /app/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
# What the sidecar reads at run time from <package root>, as package.json `files` lists it: the built-in models, the
# OTLP .proto, and the examples (the embedded default's adapter task config).
COPY model/builtin ./model/builtin
COPY collector/otlp/otlp_trace.proto ./collector/otlp/
COPY examples ./examples
# The image's `node` user (uid 1000); numeric so the kubelet can enforce runAsNonRoot.
USER 1000:1000
EXPOSE 9464
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["run", "--config", "/etc/reconcile-shadow/shadow.yaml"]
