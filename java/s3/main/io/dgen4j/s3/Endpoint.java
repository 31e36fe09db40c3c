package io.dgen4j.s3;

/**
 * One endpoint of a pool: its place in the set, its transport (created once, reused by every
 * request) and the process's health of it.
 *
 * @param index     its place in the set (0-based)
 * @param name      the endpoint as configured, e.g. {@code http://127.0.0.1:9000}
 * @param settings  the settings with this endpoint alone
 * @param transport the backend's calls to it
 * @param health    the process's health of it
 */
record Endpoint(int index, String name, S3Settings settings, S3Transport transport, EndpointHealth health) {
    @Override
    public String toString() {
        return name;
    }
}
