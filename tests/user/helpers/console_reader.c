/*
 * console_reader: holds the console, says so (through the server), reads
 * a line from standard input -- newlib's fgets(), whose read() calls the
 * console server at the endpoint in slot 0 -- prints it, lets the console
 * go, and exits 0 if it is argv[1] (tests/console_server.c types it).
 */
#include <stdio.h>
#include <string.h>
#include "qcap.h"
#include "qconsole.h"

int main(int argc, char **argv)
{
	char line[128];

	if (argc != 2)
		return 2;
	if (q_console_attach(0) < 0)
		return 4;
	printf("console_reader: holding the console\n");	/* (the test waits for it) */
	if (!fgets(line, sizeof(line), stdin))
		return 3;
	line[strcspn(line, "\r\n")] = '\0';
	printf("console_reader: read '%s'\n", line);
	q_console_detach();
	return strcmp(line, argv[1]) ? 1 : 0;
}
