package io.dgen4j.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.storage.StorageTarget;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class S3LocationTest {
    @Test
    void parsesBucketAndKeyFromATarget() {
        S3Location l = S3Location.of(StorageTarget.parse("s3://ckpt-bucket.v2/run1/rank0.bin"));
        assertEquals("ckpt-bucket.v2", l.bucket());
        assertEquals("run1/rank0.bin", l.key());
        assertEquals("s3://ckpt-bucket.v2/run1/rank0.bin", l.toString());
    }

    @Test
    void decodesPercentEscapesInTheKeyAsUtf8() {
        assertEquals("a b/ü.bin", S3Location.parse("s3://bkt/a%20b/%C3%BC.bin").key());
        assertEquals("plain+key", S3Location.parse("S3://bkt/plain+key").key());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "s3://ab/k|3 to 63 characters long, it has 2",
        "s3://Bucket/k|character 'B' at index 0",
        "s3://my_bucket/k|character '_' at index 2",
        "s3://-bucket/k|start and end with a letter or a digit",
        "s3://a..b/k|two adjacent periods",
        "s3://192.168.1.1/k|IP address",
        "s3://bucket|names a bucket but no object",
        "s3://bucket/|names no object",
        "s3:///key|names no bucket",
        "s3://bucket/dir/|ends with '/': a checkpoint target is an object",
        "s3://bucket/a%2|'%' at index 1 of the key",
        "s3://bucket/%FF|not UTF-8",
        "http://bucket/k|not an s3://bucket/key URI",
    })
    void refusesWhatS3DoesNotTakeWithTheRule(String uri, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> S3Location.parse(uri));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void refusesALongBucketAndALongKey() {
        String longBucket = "b".repeat(64);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> S3Location.parse("s3://" + longBucket + "/k"))
                .getMessage().contains("it has 64"));
        assertEquals(63, S3Location.parse("s3://" + "b".repeat(63) + "/k").bucket().length());
        assertEquals(1024, S3Location.parse("s3://bkt/" + "k".repeat(1024)).key().length());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> S3Location.parse("s3://bkt/" + "k".repeat(1025)))
                .getMessage().contains("1025 bytes of UTF-8: S3 allows at most 1024"));
    }

    @Test
    void refusesATargetOfAnotherScheme() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> S3Location.of(StorageTarget.parse("/tmp/x")))
                .getMessage().contains("not an s3:// target"));
    }
}
