// SPDX-License-Identifier: GPL-2.0-or-later
/* A program linked with early_dep.c's library: slots through the syscall()
 * that library's constructor kept (tests/hostile/holes.sh, early-dependency). */
void early_dep_slots(void);

int main(void)
{
	early_dep_slots();
	return 0;
}
