# Build stage: compile the release binary.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p continental

# Runtime stage: just the binary on a slim Debian.
FROM debian:bookworm-slim
RUN useradd --system --home /data continental && mkdir -p /data && chown continental /data
COPY --from=build /src/target/release/continental /usr/local/bin/continental
USER continental
WORKDIR /data
ENV CONTINENTAL_BIND=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/continental"]
