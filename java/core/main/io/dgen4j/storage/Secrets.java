package io.dgen4j.storage;

import java.util.Collection;
import java.util.regex.Pattern;

/**
 * The one masking of secrets in text that dgen4j prints or logs: the user info of any URL
 * ({@code s3://user:secret@bucket/key}, {@code http://user:secret@host:9000}) becomes {@code ***},
 * and so does every occurrence of known secret values (a secret key, a session token). Messages
 * that echo what a user typed (a target, an endpoint, a template) pass through {@link #mask(String)}.
 *
 * {@snippet :
 * Secrets.mask("bad bucket in s3://u:pw@b/k");   // "bad bucket in s3://***@b/k"
 * }
 */
public final class Secrets {
    /** What replaces a secret. */
    public static final String MASK = "***";
    /**
     * {@code ://} (after any scheme, even a malformed one), then the user info up to the last {@code @}
     * before the host part ends (a {@code /}, {@code ?}, {@code #} or blank); quotes end it too, since
     * messages quote URLs.
     */
    private static final Pattern USER_INFO = Pattern.compile("(://)[^/?#\\s'\"]*@");
    /** Secret values shorter than this are not masked: they would mask ordinary words. */
    private static final int MIN_SECRET_LENGTH = 4;

    private Secrets() {}

    /** {@code text} with the user info of every URL in it replaced by {@value #MASK}; null stays null. */
    public static String mask(String text) {
        if (text == null || text.indexOf('@') < 0) {
            return text;
        }
        return USER_INFO.matcher(text).replaceAll(m -> java.util.regex.Matcher.quoteReplacement(m.group(1) + MASK + "@"));
    }

    /**
     * {@link #mask(String)}, and every occurrence of each of {@code secrets} (values of at least 4
     * characters; null and shorter ones are skipped) replaced by {@value #MASK}.
     */
    public static String mask(String text, Collection<String> secrets) {
        String out = mask(text);
        if (out == null) {
            return null;
        }
        for (String s : secrets) {
            if (s != null && s.length() >= MIN_SECRET_LENGTH && out.contains(s)) {
                out = out.replace(s, MASK);
            }
        }
        return out;
    }

    /** Whether {@code text} holds the user info of a URL ({@code scheme://user[:secret]@...}). */
    public static boolean hasUserInfo(String text) {
        return text != null && text.indexOf('@') >= 0 && USER_INFO.matcher(text).find();
    }
}
