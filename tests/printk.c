/* printk formats with newlib's full vsnprintf: every length modifier works. */
#include "ktest.h"

static char out[256];

KTEST(printk_formats_with_newlib)
{
	int n;

	console_capture(out, sizeof(out));
	n = printk("# fmt: %lld %llu %zu %lx %p %s|%5d|%-3c|\n", -1234567890123LL,
		   18446744073709551615ULL, (size_t)4096, 0xdeadbeefUL,
		   (void *)0x1234, "str", 42, 'x');
	console_capture(NULL, 0);
	KEXPECT(!strcmp(out, "# fmt: -1234567890123 18446744073709551615 4096 deadbeef "
			     "0x1234 str|   42|x  |\n"));
	KEXPECT_EQ(n, (long long)strlen(out));
}

KTEST(printk_formats_floating_point)
{
	console_capture(out, sizeof(out));
	printk("# float: %.3f %e\n", 3.14159, 12345.678);
	console_capture(NULL, 0);
	KEXPECT(!strcmp(out, "# float: 3.142 1.234568e+04\n"));
}

KTEST(printk_cuts_overlong_messages_at_a_line_end)
{
	static char big[2000];

	memset(big, 'a', sizeof(big) - 1);
	memcpy(big, "# long: ", 8);
	console_capture(out, sizeof(out));
	printk("%s\n", big);
	console_capture(NULL, 0);
	KEXPECT_EQ(strlen(out), sizeof(out) - 1);	/* the capture holds the start */
	KEXPECT_EQ(out[8], 'a');
}
