/* SPDX-License-Identifier: MIT */
/* Not yet implemented. */
typedef int warder__unimplemented_landlock;
