/* SPDX-License-Identifier: MIT */
/* The agents' settings files: registering the hook (warder hook install, see hook.h). */
#include <string.h>

#include "hook/hook.h"

/* Whether `cmd` runs `warder hook <agent>` (any warder binary, any options). */
static bool runs_warder_hook(const char *cmd, const char *agent)
{
        size_t n = strcspn(cmd, " \t");
        const char *first = cmd;
        /* the program, possibly quoted: its last component is warder */
        while (n && (first[n - 1] == '\'' || first[n - 1] == '"'))
                n--;
        if (n < 6 || strncmp(first + n - 6, "warder", 6) != 0 ||
            (n > 6 && first[n - 7] != '/' && first[n - 7] != '\'' && first[n - 7] != '"'))
                return false;
        const char *rest = cmd + strcspn(cmd, " \t");
        while (*rest == ' ' || *rest == '\t')
                rest++;
        size_t a = strlen(agent);
        return strncmp(rest, "hook ", 5) == 0 && strncmp(rest + 5, agent, a) == 0 &&
               (rest[5 + a] == '\0' || rest[5 + a] == ' ' || rest[5 + a] == '\t');
}

int warder_hook_settings_merge(const struct warder_hook_protocol *p, json_t *settings,
                               const char *command, bool *changed, const char **why)
{
        *changed = false;
        if (!json_is_object(settings)) {
                *why = "the settings are not a JSON object";
                return WARDER_EINVAL;
        }
        json_t *hooks = json_object_get(settings, "hooks");
        if (hooks && !json_is_object(hooks)) {
                *why = "\"hooks\" is not an object";
                return WARDER_EINVAL;
        }
        json_t *list = hooks ? json_object_get(hooks, p->event) : NULL;
        if (list && !json_is_array(list)) {
                *why = "the hooks of the event are not a list";
                return WARDER_EINVAL;
        }
        /* already registered, or an older warder hook command to update in place */
        size_t i, k;
        json_t *group, *h;
        json_t *older = NULL;
        json_array_foreach(list, i, group)
        {
                json_t *hs = json_object_get(group, "hooks");
                json_array_foreach(hs, k, h)
                {
                        const char *cmd = json_string_value(json_object_get(h, "command"));
                        if (!cmd)
                                continue;
                        if (strcmp(cmd, command) == 0)
                                return 0;
                        if (!older && runs_warder_hook(cmd, p->name))
                                older = h;
                }
        }
        if (older) {
                if (json_object_set_new(older, "command", json_string(command)))
                        return WARDER_ENOMEM;
                *changed = true;
                return 0;
        }
        json_t *entry = p == &warder_hook_gemini_cli
                            ? json_pack("{s:s,s:s,s:s}", "name", "warder", "type", "command",
                                        "command", command)
                            : json_pack("{s:s,s:s}", "type", "command", "command", command);
        json_t *g = entry ? json_pack("{s:s,s:[o]}", "matcher", "*", "hooks", entry) : NULL;
        if (!g)
                return WARDER_ENOMEM;
        if (!hooks) {
                hooks = json_object();
                if (!hooks || json_object_set_new(settings, "hooks", hooks)) {
                        json_decref(g);
                        return WARDER_ENOMEM;
                }
        }
        if (!list) {
                list = json_array();
                if (!list || json_object_set_new(hooks, p->event, list)) {
                        json_decref(g);
                        return WARDER_ENOMEM;
                }
        }
        if (json_array_append_new(list, g))
                return WARDER_ENOMEM;
        *changed = true;
        return 0;
}
