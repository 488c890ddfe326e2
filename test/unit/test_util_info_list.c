/* Unit tests of libpmix-core/util info_list.c: every PMIx_Info_list_* variant,
 * conversion (including the empty list), iteration and ownership of inserted infos.
 * Needs the types area's PMIx_Info_load/xfer/destruct. Single-threaded. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pmix_common.h"

static void release_array(pmix_data_array_t *d)
{
    pmix_info_t *info = d->array;

    for (size_t i = 0; i < d->size; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    free(info);
    d->array = NULL;
    d->size = 0;
}

Test(info_list, start_release_empty)
{
    void *l = PMIx_Info_list_start();
    pmix_data_array_t d = {PMIX_UNDEF, 5, (void *)&d};
    void *next = (void *)&d;

    cr_assert_not_null(l);
    cr_assert_eq(PMIx_Info_list_get_size(l), 0);
    cr_assert_null(PMIx_Info_list_get_info(l, NULL, &next));
    cr_assert_null(next);
    cr_assert_eq(PMIx_Info_list_convert(l, &d), PMIX_ERR_EMPTY);
    cr_assert_eq(d.type, PMIX_INFO);
    cr_assert_eq(d.size, 0);
    cr_assert_null(d.array);
    PMIx_Info_list_release(l);
    PMIx_Info_list_release(NULL);
}

Test(info_list, null_arguments)
{
    void *l = PMIx_Info_list_start();
    uint32_t u = 1;
    pmix_info_t info;
    pmix_value_t v;
    pmix_data_array_t d;

    memset(&info, 0, sizeof(info));
    memset(&v, 0, sizeof(v));
    cr_assert_eq(PMIx_Info_list_add(NULL, "k", &u, PMIX_UINT32), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_add(l, NULL, &u, PMIX_UINT32), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_prepend(NULL, "k", &u, PMIX_UINT32), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_add_unique(NULL, "k", &u, PMIX_UINT32, true), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_add_value(l, "k", NULL), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_add_value(NULL, "k", &v), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_add_value_unique(l, NULL, &v, true), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_xfer(l, NULL), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_xfer(NULL, &info), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_xfer_unique(l, NULL, true), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_insert(l, NULL), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_insert(NULL, &info), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_convert(NULL, &d), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_convert(l, NULL), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Info_list_get_size(NULL), 0);
    cr_assert_null(PMIx_Info_list_get_info(NULL, NULL, NULL));
    cr_assert_eq(PMIx_Info_list_get_size(l), 0);
    PMIx_Info_list_release(l);
}

Test(info_list, add_prepend_convert)
{
    void *l = PMIx_Info_list_start();
    uint32_t u = 7;
    char str[] = "hello";
    bool t = true;
    pmix_data_array_t d;
    pmix_info_t *info;

    cr_assert_eq(PMIx_Info_list_add(l, "k.uint", &u, PMIX_UINT32), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_add(l, "k.str", str, PMIX_STRING), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_prepend(l, "k.first", &t, PMIX_BOOL), PMIX_SUCCESS);
    str[0] = 'J'; /* the list holds its own copy */
    cr_assert_eq(PMIx_Info_list_get_size(l), 3);

    cr_assert_eq(PMIx_Info_list_convert(l, &d), PMIX_SUCCESS);
    cr_assert_eq(d.type, PMIX_INFO);
    cr_assert_eq(d.size, 3);
    info = d.array;
    cr_assert_str_eq(info[0].key, "k.first");
    cr_assert_eq(info[0].value.type, PMIX_BOOL);
    cr_assert(info[0].value.data.flag);
    cr_assert_str_eq(info[1].key, "k.uint");
    cr_assert_eq(info[1].value.type, PMIX_UINT32);
    cr_assert_eq(info[1].value.data.uint32, 7);
    cr_assert_str_eq(info[2].key, "k.str");
    cr_assert_eq(info[2].value.type, PMIX_STRING);
    cr_assert_str_eq(info[2].value.data.string, "hello");
    cr_assert(info[2].flags & PMIX_INFO_ARRAY_END);
    cr_assert_not(info[0].flags & PMIX_INFO_ARRAY_END);

    /* the list is untouched and independent of the array */
    cr_assert_eq(PMIx_Info_list_get_size(l), 3);
    PMIx_Info_list_release(l);
    cr_assert_str_eq(info[2].value.data.string, "hello");
    release_array(&d);
}

Test(info_list, add_unique)
{
    void *l = PMIx_Info_list_start();
    uint32_t a = 1, b = 2, c = 3;
    pmix_info_t *info;
    void *next;

    cr_assert_eq(PMIx_Info_list_add_unique(l, "k", &a, PMIX_UINT32, false), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_add_unique(l, "k", &b, PMIX_UINT32, false), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_get_size(l), 1);
    info = PMIx_Info_list_get_info(l, NULL, &next);
    cr_assert_eq(info->value.data.uint32, 1);
    cr_assert_eq(PMIx_Info_list_add_unique(l, "k", &c, PMIX_UINT32, true), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_get_size(l), 1);
    info = PMIx_Info_list_get_info(l, NULL, &next);
    cr_assert_eq(info->value.data.uint32, 3);
    /* overwrite with a different type, and a string (freed on release) */
    cr_assert_eq(PMIx_Info_list_add_unique(l, "k", "text", PMIX_STRING, true), PMIX_SUCCESS);
    info = PMIx_Info_list_get_info(l, NULL, &next);
    cr_assert_eq(info->value.type, PMIX_STRING);
    cr_assert_str_eq(info->value.data.string, "text");
    cr_assert_eq(PMIx_Info_list_add_unique(l, "k2", &a, PMIX_UINT32, true), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_get_size(l), 2);
    PMIx_Info_list_release(l);
}

Test(info_list, add_value_and_unique)
{
    void *l = PMIx_Info_list_start();
    pmix_value_t v1, v2;
    pmix_info_t *info;
    void *next;

    memset(&v1, 0, sizeof(v1));
    memset(&v2, 0, sizeof(v2));
    cr_assert_eq(PMIx_Value_load(&v1, "one", PMIX_STRING), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Value_load(&v2, "two", PMIX_STRING), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_add_value(l, "a", &v1), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_add_value_unique(l, "a", &v2, false), PMIX_SUCCESS);
    info = PMIx_Info_list_get_info(l, NULL, &next);
    cr_assert_str_eq(info->key, "a");
    cr_assert_str_eq(info->value.data.string, "one");
    cr_assert_neq(info->value.data.string, v1.data.string);
    cr_assert_eq(PMIx_Info_list_add_value_unique(l, "a", &v2, true), PMIX_SUCCESS);
    info = PMIx_Info_list_get_info(l, NULL, &next);
    cr_assert_str_eq(info->value.data.string, "two");
    cr_assert_eq(PMIx_Info_list_add_value_unique(l, "b", &v2, false), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_get_size(l), 2);
    PMIx_Value_destruct(&v1);
    PMIx_Value_destruct(&v2);
    PMIx_Info_list_release(l);
}

Test(info_list, xfer_and_unique)
{
    void *l = PMIx_Info_list_start();
    pmix_info_t src, src2;
    pmix_info_t *info;
    void *next;
    int i1 = 10, i2 = 20;

    memset(&src, 0, sizeof(src));
    memset(&src2, 0, sizeof(src2));
    cr_assert_eq(PMIx_Info_load(&src, "x", &i1, PMIX_INT), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_load(&src2, "x", &i2, PMIX_INT), PMIX_SUCCESS);
    src.flags = PMIX_INFO_REQD;
    cr_assert_eq(PMIx_Info_list_xfer(l, &src), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_xfer_unique(l, &src2, false), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_get_size(l), 1);
    info = PMIx_Info_list_get_info(l, NULL, &next);
    cr_assert_eq(info->value.data.integer, 10);
    cr_assert(info->flags & PMIX_INFO_REQD);
    cr_assert_eq(PMIx_Info_list_xfer_unique(l, &src2, true), PMIX_SUCCESS);
    info = PMIx_Info_list_get_info(l, NULL, &next);
    cr_assert_eq(info->value.data.integer, 20);
    cr_assert(info->flags & PMIX_INFO_REQD); /* flags of the existing entry are kept */
    cr_assert_eq(PMIx_Info_list_xfer(l, &src2), PMIX_SUCCESS); /* plain xfer: duplicates ok */
    cr_assert_eq(PMIx_Info_list_get_size(l), 2);
    PMIx_Info_destruct(&src);
    PMIx_Info_destruct(&src2);
    PMIx_Info_list_release(l);
}

/* insert borrows the value: the list never frees it, convert deep-copies it. */
Test(info_list, insert_borrows)
{
    void *l = PMIx_Info_list_start();
    pmix_info_t mine;
    pmix_data_array_t d;
    pmix_info_t *out;

    memset(&mine, 0, sizeof(mine));
    cr_assert_eq(PMIx_Info_load(&mine, "borrowed", "caller-owned", PMIX_STRING), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_insert(l, &mine), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_get_size(l), 1);
    cr_assert_eq(PMIx_Info_list_get_info(l, NULL, NULL)->value.data.string, mine.value.data.string);
    cr_assert_eq(PMIx_Info_list_convert(l, &d), PMIX_SUCCESS);
    out = d.array;
    cr_assert_str_eq(out[0].value.data.string, "caller-owned");
    cr_assert_neq(out[0].value.data.string, mine.value.data.string);
    PMIx_Info_list_release(l);
    /* still ours and intact: valgrind would flag a double free or use after free */
    cr_assert_str_eq(mine.value.data.string, "caller-owned");
    PMIx_Info_destruct(&mine);
    release_array(&d);
}

Test(info_list, overwrite_inserted_entry)
{
    void *l = PMIx_Info_list_start();
    pmix_info_t mine;
    uint32_t u = 5;

    memset(&mine, 0, sizeof(mine));
    cr_assert_eq(PMIx_Info_load(&mine, "k", "kept", PMIX_STRING), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_insert(l, &mine), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_add_unique(l, "k", &u, PMIX_UINT32, true), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_get_info(l, NULL, NULL)->value.data.uint32, 5);
    PMIx_Info_list_release(l);
    cr_assert_str_eq(mine.value.data.string, "kept");
    PMIx_Info_destruct(&mine);
}

Test(info_list, iterate)
{
    void *l = PMIx_Info_list_start();
    const char *keys[] = {"a", "b", "c"};
    void *prev = NULL;
    void *next = NULL;
    pmix_info_t *info;
    size_t n = 0;

    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(PMIx_Info_list_add(l, keys[i], &i, PMIX_SIZE), PMIX_SUCCESS);
    }
    while ((info = PMIx_Info_list_get_info(l, prev, &next)) != NULL) {
        cr_assert_lt(n, 3);
        cr_assert_str_eq(info->key, keys[n]);
        cr_assert_eq(info->value.data.size, n);
        n++;
        if (next == NULL) {
            break;
        }
        prev = next;
    }
    cr_assert_eq(n, 3);
    PMIx_Info_list_release(l);
}

Test(info_list, long_key_truncated)
{
    void *l = PMIx_Info_list_start();
    char key[PMIX_MAX_KEYLEN + 20];
    pmix_value_t v;

    memset(key, 'k', sizeof(key) - 1);
    key[sizeof(key) - 1] = '\0';
    memset(&v, 0, sizeof(v));
    cr_assert_eq(PMIx_Value_load(&v, NULL, PMIX_BOOL), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_list_add_value(l, key, &v), PMIX_SUCCESS);
    cr_assert_eq(strlen(PMIx_Info_list_get_info(l, NULL, NULL)->key), PMIX_MAX_KEYLEN);
    PMIx_Info_list_release(l);
}
