/* SPDX-License-Identifier: MIT */
#include "cli.h"

int cli_cmd_test(int argc, char **argv, struct cli_common *c)
{
        (void)argc;
        (void)c;
        cli_error(argv[0], "not available in this build yet");
        return CLI_ERROR;
}
