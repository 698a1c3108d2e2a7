/* ds_assert.h: floating-point assertions of the cmocka test suites.
 *
 * cmocka 1.1's assert_float_equal converts both operands to float and accepts NaN, +inf == 5 and
 * -inf == +inf, so a test using it cannot catch a value that went infinite or NaN. Use these:
 *
 *   assert_double_near(actual, expected, rel_tol)
 *       both operands finite and |actual - expected| <= rel_tol * max(1, |actual|, |expected|):
 *       a relative tolerance, with an absolute floor of rel_tol for values below 1 in magnitude.
 *       rel_tol 0 asks for exact equality. NaN or an infinity in either operand fails.
 *   assert_double_inf(x, sign)   x is +inf (sign > 0) or -inf (sign < 0)
 *   assert_double_nan(x)         x is NaN
 *
 * A failure prints the expressions, both values with %.17g and file:line. The ds_double_*_ok
 * functions are the checks themselves (true when the assertion would pass). */
#ifndef DAGSCHED_TEST_DS_ASSERT_H
#define DAGSCHED_TEST_DS_ASSERT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>

/* A tolerance is usable when finite, non-negative and below 1 (100 %). */
static inline bool ds_rel_tol_ok(double rel_tol)
{
    return isfinite(rel_tol) && rel_tol >= 0 && rel_tol < 1;
}

static inline double ds_double_tolerance(double actual, double expected, double rel_tol)
{
    return rel_tol * fmax(1.0, fmax(fabs(actual), fabs(expected)));
}

static inline bool ds_double_near_ok(double actual, double expected, double rel_tol)
{
    if (!isfinite(actual) || !isfinite(expected) || !ds_rel_tol_ok(rel_tol))
        return false;
    return fabs(actual - expected) <= ds_double_tolerance(actual, expected, rel_tol);
}

static inline bool ds_double_inf_ok(double x, int sign)
{
    return sign != 0 && isinf(x) && (sign > 0) == (x > 0);
}

static inline bool ds_double_nan_ok(double x)
{
    return isnan(x);
}

static inline void ds_assert_double_near_at(double actual, double expected, double rel_tol,
                                            const char *actual_expr, const char *expected_expr,
                                            const char *file, int line)
{
    if (ds_double_near_ok(actual, expected, rel_tol))
        return;
    if (!ds_rel_tol_ok(rel_tol))
        print_error("%s:%d: assert_double_near(%s, %s): bad tolerance %.17g (must be in [0, 1))\n",
                    file, line, actual_expr, expected_expr, rel_tol);
    else if (!isfinite(actual) || !isfinite(expected))
        print_error("%s:%d: assert_double_near(%s, %s): non-finite operand: actual %.17g, "
                    "expected %.17g (use assert_double_inf / assert_double_nan where that is "
                    "expected)\n",
                    file, line, actual_expr, expected_expr, actual, expected);
    else
        print_error("%s:%d: assert_double_near(%s, %s): actual %.17g, expected %.17g, "
                    "|difference| %.17g > tolerance %.17g (rel_tol %g)\n",
                    file, line, actual_expr, expected_expr, actual, expected,
                    fabs(actual - expected), ds_double_tolerance(actual, expected, rel_tol),
                    rel_tol);
    _fail(file, line);
}

static inline void ds_assert_double_inf_at(double x, int sign, const char *expr, const char *file,
                                           int line)
{
    if (ds_double_inf_ok(x, sign))
        return;
    const char *want = sign > 0 ? "+inf" : "-inf";
    if (sign == 0)
        want = "(bad sign 0)";
    print_error("%s:%d: assert_double_inf(%s): actual %.17g, expected %s\n", file, line, expr, x,
                want);
    _fail(file, line);
}

static inline void ds_assert_double_nan_at(double x, const char *expr, const char *file, int line)
{
    if (ds_double_nan_ok(x))
        return;
    print_error("%s:%d: assert_double_nan(%s): actual %.17g, expected nan\n", file, line, expr, x);
    _fail(file, line);
}

#define assert_double_near(actual, expected, rel_tol)                                              \
    ds_assert_double_near_at((actual), (expected), (rel_tol), #actual, #expected, __FILE__,        \
                             __LINE__)
#define assert_double_inf(x, sign) ds_assert_double_inf_at((x), (sign), #x, __FILE__, __LINE__)
#define assert_double_nan(x)       ds_assert_double_nan_at((x), #x, __FILE__, __LINE__)

/* Refuse cmocka's float assertions in every suite that includes this header. */
#undef assert_float_equal
#undef assert_float_not_equal
#define assert_float_equal(a, b, eps)     ds_assert_float_equal_is_refused_use_assert_double_near
#define assert_float_not_equal(a, b, eps) ds_assert_float_not_equal_is_refused

#endif
