/**
 * How long a test waits for something it expects to happen (a job done, a port open, a line
 * logged) before it gives up. A bound for a hang, never a deadline that a busy machine could miss:
 * waits of 30 and 60 s failed with the load at 12 on two cores (issue 34), and CI runs three
 * projects' files two at a time. A test's own timeout usually ends a hang first.
 */
export const HANG_BOUND_MS = 600_000;
