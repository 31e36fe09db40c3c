/** Finding, extracting and loading the bundled native core, and reading its errors. */
package io.dgen4j.nativelib;
