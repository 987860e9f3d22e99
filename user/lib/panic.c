/* panic() for programs (quiescent.h): a fatal error, said, then abort(). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "quiescent.h"

void panic(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	printf("panic: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	abort();
}
