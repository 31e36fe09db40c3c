/**
 * Running as one rank of many: where this process sits in a launch ({@link io.dgen4j.launch.LaunchInfo}).
 */
package io.dgen4j.launch;
