/* SPDX-License-Identifier: MIT */
/*
 * Mutation testing only (scripts/mutate.py, meson option mutation_schemata; never in a
 * normal build): included first into every library source of a schema build, whose sources
 * hold every mutant of a file at once, each behind a test of warder__mutant.
 */
#ifndef WARDER_MUTANT_H
#define WARDER_MUTANT_H

/* The mutant to run: the environment variable WARDER_MUTANT, read once when the library is
 * loaded; -1 (the original code) when it is unset or not a number. */
extern int warder__mutant;

#endif
