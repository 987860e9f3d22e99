/*
 * Programs mark make profile's windows with the kernel's instruction
 * (arch/x86_64/include/asm/profile.h): one copy of it.
 */
#include "../../../../arch/x86_64/include/asm/profile.h"
