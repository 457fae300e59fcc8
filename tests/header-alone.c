/* SPDX-License-Identifier: MIT */
/* Compiled once per public header with `-include <header>`: each header stands alone. */
int main(void)
{
        return 0;
}
