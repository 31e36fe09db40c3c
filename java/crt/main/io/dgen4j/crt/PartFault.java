package io.dgen4j.crt;

/**
 * A fault for tests, passed in the storage options: part {@code part} of every upload is sent with
 * a Content-MD5 that does not match its bytes, so that the server refuses it (HTTP 400 BadDigest)
 * as it would a part damaged in transit. Package-private: not an option users can set.
 *
 * @param part the 1-based part number to spoil
 */
record PartFault(int part) {
    /** The MD5 of the empty string, base64: wrong for any part with data. */
    static final String WRONG_MD5 = "1B2M2Y8AsgTpgAEAAAAAAA==";
}
