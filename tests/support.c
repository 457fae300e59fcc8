/* SPDX-License-Identifier: MIT */
#include "support.h"

#include <stdlib.h>

int warder_test_run(Suite *s)
{
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
