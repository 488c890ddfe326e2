/* being written (issue 5) */
#include <criterion/criterion.h>
