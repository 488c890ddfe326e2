/* Unit tests for store/: kvsets, registration with derivation, lookup, transfer. */
#include <criterion/criterion.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "store/px_store.h"

Test(store, placeholder)
{
    px_kvset_t s;
    px_kvset_init(&s);
    cr_assert_eq(px_kvset_put_num(&s, PMIX_LOCAL_RANK, 3, false), PMIX_SUCCESS);
    const pmix_value_t *v = px_kvset_get(&s, PMIX_LOCAL_RANK);
    cr_assert_not_null(v);
    cr_assert_eq(v->type, PMIX_UINT16);
    px_kvset_fini(&s);
}
