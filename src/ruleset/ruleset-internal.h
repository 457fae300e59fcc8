/* SPDX-License-Identifier: MIT */
#ifndef WARDER_RULESET_INTERNAL_H
#define WARDER_RULESET_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "warder/glob.h"
#include "warder/ruleset.h"
#include "warder/tooling.h"

/* ---- Arenas (arena.c) --------------------------------------------------------------------- */

struct warder__arena_chunk;

/* Allocations that live as long as their owner (a ruleset, a YAML tree), freed together. */
struct warder__arena {
        struct warder__arena_chunk *head;
        size_t next; /* the size of the next chunk */
};

/* `n` bytes aligned for any scalar, or NULL when out of memory. */
void *warder__arena_alloc(struct warder__arena *a, size_t n);
/* A NUL-terminated copy of s[0..n), or NULL. */
char *warder__arena_strndup(struct warder__arena *a, const char *s, size_t n);
void warder__arena_free(struct warder__arena *a);

/* ---- YAML documents (yaml.c) ------------------------------------------------------------ */

enum warder__ynode_type {
        WARDER__Y_SCALAR,
        WARDER__Y_SEQ,
        WARDER__Y_MAP,
};

/* Resolved type of a scalar under the YAML 1.2 core schema (§1.8). */
enum warder__yscalar {
        WARDER__YS_STR,
        WARDER__YS_NULL,
        WARDER__YS_BOOL,
        WARDER__YS_INT,
        WARDER__YS_FLOAT,
};

struct warder__ynode {
        char *value; /* scalars: NUL-terminated (may contain NUL: see len) */
        size_t len;
        struct warder__ynode **items; /* sequence items, or mapping key/value pairs flattened */
        size_t n, cap;
        size_t expanded;       /* nodes after alias expansion, this one included */
        size_t height;         /* nesting height after alias expansion, 1 for a scalar */
        unsigned line, column; /* 1-based start of the node */
        /* For scalars written on one line without escapes: the column of the first content
         * byte, so byte offsets map to columns. 0 when the mapping is not exact. */
        unsigned content_column;
        uint8_t type;  /* enum warder__ynode_type */
        uint8_t stype; /* enum warder__yscalar, scalars only */
        bool complete;
};

struct warder__ydoc {
        struct warder__ynode *root; /* NULL for an empty document */
        struct warder__arena arena; /* every node, its value and its items */
};

/* Parses one YAML document. Errors carry `file`, line and column; a name quoted from the
 * document (a tag, an alias) is cut to `quote_max` bytes when it is not 0. */
int warder__yaml_parse(const char *text, size_t len, const char *file, size_t max_depth,
                       size_t max_nodes, size_t quote_max, struct warder__ydoc *out,
                       struct warder_error *err);
void warder__yaml_free(struct warder__ydoc *doc);

/* ---- The model -------------------------------------------------------------------------- */

enum warder__key_kind {
        WARDER__K_EXACT,
        WARDER__K_PREFIX,
        WARDER__K_BASE,
        WARDER__K_EXT,
        WARDER__K_COMP,
        WARDER__K_BSUB,  /* a gram (1-4 bytes) of a literal the basename must contain */
        WARDER__K_PSUB,  /* a gram of a literal a directory component must contain */
        WARDER__K_COUNT, /* as a key: residual (no key, run on every check) */
};

enum warder__alt_kind {
        WARDER__ALT_EXACT,  /* the target equals `prefix` */
        WARDER__ALT_UNDER,  /* strictly below `prefix` (everything when prefix is "") */
        WARDER__ALT_BASE,   /* below `prefix`, basename equals `lit` */
        WARDER__ALT_SUFFIX, /* below `prefix`, basename ends with `lit` */
        WARDER__ALT_COMP,   /* below `prefix`, a directory component after it equals `lit` */
        WARDER__ALT_BSTART, /* below `prefix`, basename starts with `lit` */
        WARDER__ALT_BHAS,   /* below `prefix`, basename contains `lit` */
};

/* One anchored brace alternative decided by string comparisons alone (no matcher). */
struct warder__alt {
        uint8_t kind;
        uint8_t key; /* enum warder__key_kind the index files it under (K_COUNT: residual) */
        uint32_t prefix_len, prefix_comps, lit_len;
        char *prefix; /* unescaped; the whole path for EXACT */
        char *lit;    /* unescaped, NULL for EXACT/UNDER */
};

/* A key under which one matcher alternative of a rule is a candidate (the matcher confirms).
 * An alternative has several (one per literal it requires); the index files it under the
 * rarest in the ruleset (index.c). */
struct warder__hint {
        uint8_t key;    /* enum warder__key_kind */
        bool weak;      /* a prefix at or above the root: a last resort */
        uint32_t group; /* which matcher alternative of the rule */
        uint32_t len;
        char *text; /* unescaped; for BSUB/PSUB the whole literal */
};

struct warder__rule {
        /* The ruleset's arena, which holds the strings, alternatives and stored matcher text
         * below; NULL for a rule compiled alone, which owns them (malloc). */
        struct warder__arena *arena;
        enum warder_action action;
        char *id;
        char *pattern; /* as written */
        char *reason;  /* may be NULL */
        const char *file;
        unsigned line, column;    /* the rule */
        unsigned pline, pcolumn;  /* the pattern scalar */
        unsigned pcontent_column; /* see warder__ynode.content_column */
        bool foreign;             /* from a file the caller did not name: errors quote a prefix */
        struct warder__alt *alts; /* alternatives decided without a matcher */
        uint32_t nalts;
        bool fold;                        /* fold_case applies (deny/ask with fold_case: true) */
        bool command;                     /* an execute rule: the matcher is the pattern itself */
        uint32_t nglob;                   /* alternatives the matcher decides (0: no matcher) */
        char *galts;                      /* those alternatives, anchored, NUL-terminated one after
                                           * another (NULL when the matcher was compiled at load) */
        _Atomic(warder_glob *) glob;      /* the matcher, once compiled (warder__rule_glob) */
        _Atomic(warder_glob *) glob_fold; /* the same with case folding, for fold rules */
        struct warder__hint *hints;       /* index key candidates of the matcher's alternatives
                                           * (freed once the index is built) */
        uint32_t nhints, hcap, ngroups;
};

/* A posting: a rule reachable through a key; `alt` names an exact alternative, or is
 * WARDER__CONFIRM when the rule's matcher must confirm. */
#define WARDER__CONFIRM UINT32_MAX
struct warder__posting {
        uint32_t rule;
        uint32_t alt;
        uint8_t action;
};

struct warder__plist {
        struct warder__posting *p;
        size_t n, cap;
};

/* A key of one kind and the run of postings filed under it. */
struct warder__kent {
        uint32_t hash, key, len; /* key: offset of its bytes in the table's `keys` */
        uint32_t first, n;       /* its postings: post[first .. first + n) */
};

/* The keys of one kind: open addressing over entries, all postings in one array, in rule
 * order within each key. */
struct warder__ktab {
        uint32_t *slots; /* entry index + 1, 0 when free; mask + 1 of them (NULL: no key) */
        uint32_t mask, n;
        struct warder__kent *ent;
        char *keys;
        struct warder__posting *post;
};

struct warder__index {
        struct warder__ktab tab[WARDER__K_COUNT];
        /* one bit per hash value (mask + 1 bits): most absent keys cost no table probe */
        uint64_t *filter[WARDER__K_COUNT];
        uint32_t fmask[WARDER__K_COUNT];
        struct warder__plist residual;
        uint32_t prefix_min, prefix_max; /* component counts of prefix keys */
        uint64_t comp_lens;              /* bit min(len, 63) for every COMP key */
        uint8_t gram_lens[2];            /* bit n for every n-byte BSUB / PSUB gram */
        size_t postings;                 /* filed postings, residual included */
        size_t weak_rules; /* rules filed only under the root or an ancestor (run on almost
                            * every check) */
        bool empty;
};

/* Execute rules by literal command prefix (index-execute.c). */
struct warder__xpost {
        uint32_t rule;
        uint32_t action;
};

struct warder__xent; /* index-execute.c */

struct warder__xtable {
        struct warder__xent *slots; /* open addressing, mask + 1 slots */
        size_t mask;
        struct warder__xpost *post; /* each key's postings: strictest first, then by index */
        char *keys;
        uint32_t *lens; /* the distinct key lengths, ascending */
        size_t nlens;
};

struct warder__xindex {
        struct warder__xtable exact;    /* rules without folding, by literal prefix */
        struct warder__xtable fold;     /* fold rules, by literal prefix in lower case */
        struct warder__xpost *residual; /* patterns that start with a wildcard */
        size_t nresidual;
};

struct warder__opset {
        bool has_default;
        enum warder_action def;
        struct warder__rule *rules;
        size_t n;
        struct warder__index idx;  /* every rule, exact keys */
        struct warder__index fidx; /* fold rules, folded keys */
        /* execute: rule indexes per action, in order */
        uint32_t *by_action[3];
        size_t n_by_action[3];
        struct warder__xindex xidx; /* execute: rules by literal prefix */
};

struct warder__test_case {
        enum warder_op op;
        enum warder_action expect;
        char *target;
        char *real; /* may be NULL */
        unsigned line, column;
};

struct warder_ruleset {
        atomic_long refs;
        struct warder__arena arena; /* the rules' strings and alternatives */
        char *root;
        char *home; /* may be NULL */
        char *base_dir;
        enum warder_action def;
        enum warder_precedence prec;
        bool fold;
        struct warder__opset ops[WARDER_OP_COUNT];
        char **files; /* interned source names */
        size_t nfiles;
        /* inline tests of the top file (`tests:`), and how to reload it with their root/home */
        bool has_tests;
        char *tests_root, *tests_home;
        const char *tests_file;
        struct warder__test_case *cases;
        size_t ncases;
        char *origin_path; /* loaded from this file */
        char *origin_text; /* or from this string (kept only when tests need a reload) */
        size_t origin_len;
        char *origin_name; /* string name or preset name */
        bool origin_preset;
        struct warder_ruleset_options opts; /* limits as given (strings not kept) */
        _Atomic(char *) digest;             /* warder_ruleset_digest(), made on first use */
};

/* ---- Rule layer (anchor.c) -------------------------------------------------------------- */

/*
 * Compiles a path rule (§2.11): expands braces, anchors each alternative, keeps the
 * alternatives that string comparisons decide in rule->alts and compiles the rest into
 * rule->glob (and rule->glob_fold). `full` forces every alternative into the matcher (a
 * reference for tests). Errors name the rule's file, line and column. `budget` (NULL: no
 * limit) is what compiling may still cost, in bytes of anchored alternatives plus
 * WARDER__ALT_COST each and WARDER__WILDCARD_COST per wildcard, twice when the rule folds
 * case: it is charged before anything is compiled, and a rule that would overdraw it is
 * WARDER_ETOOBIG.
 */
#define WARDER__ALT_COST      64
#define WARDER__WILDCARD_COST 24
int warder__rule_compile_path(struct warder__rule *rule, const char *root, const char *home,
                              bool fold_case, bool full, size_t *budget, struct warder_error *err);
/* The anchored alternatives of a path rule, as core patterns (tests, lint). */
int warder__rule_alternatives(const struct warder__rule *rule, const char *root, const char *home,
                              char ***out, size_t *count, struct warder_error *err);
int warder__rule_compile_command(struct warder__rule *rule, bool fold_case, size_t *budget,
                                 struct warder_error *err);
/*
 * The rule's matcher (the case-folding one when `fold`), compiled on first use: a rule the
 * index never reaches is never compiled. Every error the compiler could report for what the
 * loader accepted is reported at load instead (the pattern is validated there, and a matcher
 * larger than WARDER__LAZY_MAX bytes is compiled there), so what is left here is running out
 * of memory: NULL with *rc negative, and the caller fails closed (§2.10). Thread-safe: racing
 * first uses compile twice and keep one.
 */
#define WARDER__LAZY_MAX 4096
const warder_glob *warder__rule_glob(const struct warder__rule *rule, bool fold, int *rc);
/* Compiles every lazy matcher of the ruleset (tests, fuzzers): 0, or the first error. */
int warder__ruleset_compile_all(const warder_ruleset *rs);
void warder__rule_release(struct warder__rule *rule);

/* A normalised target split into components. */
struct warder__target {
        const char *s;
        size_t len;
        const uint32_t *slash; /* offsets of the n separators */
        size_t n;              /* components */
        const char *base;
        size_t base_len;
};

/* Whether a literal directory prefix (`comps` components) is a useful index key: not the root
 * or one of its ancestors, which would collect every root-relative rule under one key. */
bool warder__prefix_eligible(const char *p, size_t plen, size_t comps, const char *root);

bool warder__alt_match(const struct warder__alt *alt, const struct warder__target *t, bool fold);
/* Whether the rule matches; engine errors fail closed (§2.10). `folded` is the target in
 * lower case (used when the rule folds). */
bool warder__rule_match(const struct warder__rule *rule, const struct warder__target *t,
                        const struct warder__target *folded);
/* Counts, per thread, the rule matches that failed in the engine (§2.10): a path decision
 * reads it before and after deciding, and turns an `ask` reached past a failure into `deny`. */
extern _Thread_local unsigned warder__match_failures;

/* ---- Index (index.c) ---------------------------------------------------------------------- */

int warder__index_build(struct warder__opset *set, const char *root, bool fold_case);
void warder__index_free(struct warder__index *idx);
/* Rules filed under no key or only under the root or an ancestor (every check runs them), and
 * the longest posting list. */
void warder__index_stats(const struct warder__index *idx, size_t *residual_rules,
                         size_t *largest_list);

/* Decides one normalised target. Returns the rule index or -1 when no rule matched. */
long warder__index_decide(const warder_ruleset *rs, enum warder_op op, const char *target,
                          size_t len);
/* The same by a loop over every rule in order (reference for tests and explain). */
long warder__linear_decide(const warder_ruleset *rs, enum warder_op op, const char *target,
                           size_t len);
/* Fills `t` (and `folded` when non-NULL) for `s`; uses per-thread scratch storage. */
int warder__target_split(const char *s, size_t len, struct warder__target *t,
                         struct warder__target *folded);

/* Execute rules (index-execute.c). Returns the index of the strictest rule whose pattern
 * matches `text` (the lowest index among equals; deny and ask rules only for the whole line),
 * or -1. */
int warder__xindex_build(struct warder__opset *set);
void warder__xindex_free(struct warder__xindex *x);
long warder__xindex_match(const struct warder__opset *set, const char *text, size_t len,
                          bool whole_line);
/* ---- Decisions (ruleset.c; the per-operation switch above them is src/check.c) --------- */

/* warder_ruleset_check() for a path operation (§3.3): never WARDER_OP_EXECUTE (EINVAL). */
int warder__ruleset_check_path(struct warder_decision *out, const warder_ruleset *rs,
                               enum warder_op op, const char *literal, size_t literal_len,
                               const char *real, size_t real_len, struct warder_error *err);

/* How warder__ruleset_explain() and warder__ruleset_run_tests() decide: the caller passes
 * warder_ruleset_check(), which knows commands (the ruleset does not). */
typedef int (*warder__check_fn)(struct warder_decision *out, const warder_ruleset *rs,
                                enum warder_op op, const char *literal, size_t literal_len,
                                const char *real, size_t real_len, struct warder_error *err);

/* warder_ruleset_explain() and warder_ruleset_run_tests(), deciding with `check`. */
int warder__ruleset_explain(struct warder_explanation **out, const warder_ruleset *rs,
                            enum warder_op op, const char *literal, size_t literal_len,
                            const char *real, size_t real_len, warder__check_fn check,
                            struct warder_error *err);
int warder__ruleset_run_tests(size_t *passed, size_t *failed, const warder_ruleset *rs,
                              warder_test_fn fn, void *ud, warder__check_fn check,
                              struct warder_error *err);

/*
 * For command inspection (§5.1–§5.3; command/decide.c): the strictest action
 * among the `execute` rules whose pattern matches `text` (one form of a simple command, or
 * the whole line when `whole_line` is true, in which case allow rules are not consulted).
 * Returns true and fills *d (strings borrowed from the ruleset) when some rule matched;
 * false and leaves *d alone otherwise. Engine errors fail closed (§2.10).
 */
bool warder__ruleset_match_execute(const warder_ruleset *rs, const char *text, size_t len,
                                   bool whole_line, struct warder_decision *d);

/* The same decision as warder__ruleset_match_execute() by a loop over every rule in order of
 * strictness (reference for tests; ruleset.c). */
bool warder__ruleset_match_execute_linear(const warder_ruleset *rs, const char *text, size_t len,
                                          bool whole_line, struct warder_decision *d);

/* ---- Subtrees (§5.4.1) -------------------------------------------------------------------- */

/* Whether some path beneath the directory given as `slashed` (normalised, with a trailing
 * `/`: "/" for the root; `folded` is the same in lower case) can match the rule. Engine
 * errors count as a match for deny and ask rules (§2.10). */
bool warder__rule_beneath(const struct warder__rule *rule, const char *slashed, size_t len,
                          const char *folded);

/*
 * For command inspection (§5.4.1): the strictest deny or ask rule of path operation `op`
 * whose pattern could match some path beneath the directory `dir` (normalised and absolute,
 * `len` bytes) — `<dir>/<anything>` — whatever its order. Returns true and fills the rule
 * members of *d (strings borrowed from the ruleset) when there is one; false and leaves *d
 * alone otherwise. Allow rules are never consulted: a rule that allows beneath the directory
 * cannot weaken the directory's own decision.
 */
bool warder__ruleset_subtree(const warder_ruleset *rs, enum warder_op op, const char *dir,
                             size_t len, struct warder_decision *d);

/* ---- Presets (generated) ------------------------------------------------------------------ */

struct warder__preset {
        const char *name;
        const char *text;
        size_t len;
};
/* What the loader read from each preset, generated at build time (gen-preset-table.c), so an
 * embedded preset loads without the YAML parser. Rules in operation order. */
struct warder__preset_rule {
        uint8_t op, action;
        const char *pattern, *reason, *id;
        unsigned line, column, pline, pcolumn, pcontent_column;
};

struct warder__preset_case {
        uint8_t op, expect;
        const char *target, *real;
        unsigned line, column;
};

struct warder__preset_table {
        const char *name;
        size_t text_len;
        bool has_default;
        uint8_t def;
        bool has_prec;
        uint8_t prec;
        bool has_fold, fold, has_tests;
        struct {
                bool present, has_default;
                uint8_t def;
                size_t n;
        } ops[WARDER_OP_COUNT];
        const struct warder__preset_rule *rules;
        size_t nrules;
        const char *troot, *thome;
        const struct warder__preset_case *cases;
        size_t ncases;
};
extern const struct warder__preset_table *const warder__preset_tables[]; /* NULL-terminated */

extern const struct warder__preset warder__presets[];
extern const size_t warder__npresets;
extern const char *const warder__preset_name_list[];

/* ---- Small helpers ------------------------------------------------------------------------ */

size_t warder__levenshtein(const char *a, const char *b);
/* The closest of `names` within distance 2, or NULL. */
const char *warder__suggest(const char *word, const char *const *names, size_t n);

#endif
