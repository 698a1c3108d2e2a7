/* fuzz_protocol.c: libFuzzer target for the extender's request parsing: the JSON tokenizer, the
 * ExtenderArgs and ExtenderPreemptionArgs parsers and the result writers that echo parsed input
 * (node names, raw Node objects, victim UIDs), and the admission webhook's AdmissionReview
 * answer (admission.h: 200 with valid JSON, or 400 with a message). Any crash, leak, sanitizer
 * report or result that is not valid JSON is a bug. Built by `make fuzz` / `make fuzz-short` with
 * clang. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "fuzz_json.h"
#include "protocol.h"

static void check_json(ds_bytebuf *b)
{
    size_t n;
    char *out = ds_bytebuf_take(b, &n);
    if (out == NULL)
        return; /* allocation failure is reported, not a crash */
    fuzz_check_json("fuzz_protocol", out, n);
    free(out);
}

static void walk_strings(const js_doc *d)
{
    char buf[64];
    for (size_t i = 0; i < d->n; i++) {
        if (d->t[i].type == JS_STRING) {
            (void)js_str_decode(d, i, buf, sizeof buf);
            (void)js_str_eq_fold(d, i, "nodenames");
        } else if (d->t[i].type == JS_NUMBER) {
            int64_t v;
            (void)js_int64(d, i, &v);
        } else if (d->t[i].type == JS_OBJECT) {
            (void)js_obj_get(d, i, "pod");
        }
        if (d->t[i].next <= i || d->t[i].next > d->n || d->t[i].end < d->t[i].start ||
            d->t[i].end > d->len)
            abort(); /* broken token invariants */
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_json_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ext_limits lim;
    ext_limits_default(&lim);
    lim.max_nodes = 1000;
    lim.max_victims = 1000;
    char err[EXT_ERR_MAX];
    const char *body = (const char *)data;

    ext_args a;
    if (ext_parse_args(body, size, &lim, &a, err) == 0) {
        walk_strings(&a.doc);
        ext_node_result *r = calloc(a.n_nodes + 1, sizeof *r);
        int *scores = calloc(a.n_nodes + 1, sizeof *scores);
        if (r != NULL && scores != NULL) {
            for (size_t i = 0; i < a.n_nodes; i++) {
                r[i].pass = (a.names[i][0] & 1) != 0;
                r[i].unresolvable = (a.names[i][0] & 2) != 0;
                r[i].message = a.names[i];
                scores[i] = (int)(i % 11);
            }
            ds_bytebuf b;
            ext_out_init(&b, 0);
            ext_emit_filter(&b, &a, r, "\xff error");
            check_json(&b);
            ext_out_init(&b, 0);
            ext_emit_priorities(&b, &a, scores);
            check_json(&b);
        }
        free(r);
        free(scores);
    } else if (strlen(err) == 0) {
        abort(); /* a failure without a message */
    }
    ext_args_free(&a);

    ext_preempt_args p;
    if (ext_parse_preempt_args(body, size, &lim, &p, err) == 0) {
        bool *keep = calloc(p.n_nodes + 1, sizeof *keep);
        const bool **kept = calloc(p.n_nodes + 1, sizeof *kept);
        bool *all = calloc(lim.max_victims + 1, sizeof *all);
        if (keep != NULL && kept != NULL && all != NULL) {
            for (size_t i = 0; i < lim.max_victims; i++)
                all[i] = (i % 3) != 1;
            for (size_t i = 0; i < p.n_nodes; i++) {
                keep[i] = (i % 2) == 0;
                kept[i] = all;
            }
            ds_bytebuf b;
            ext_out_init(&b, 0);
            ext_emit_preemption(&b, &p, keep, kept);
            check_json(&b);
        }
        free(keep);
        free(kept);
        free(all);
    } else if (strlen(err) == 0) {
        abort();
    }
    ext_preempt_args_free(&p);

    for (int rewrite = 0; rewrite < 2; rewrite++) {
        ext_adm_opts ao = {.scheduler_name = "dagsched",
                           .install_namespace = "dagsched-system",
                           .set_scheduler_name = rewrite != 0,
                           .max_body = lim.max_body};
        ext_adm_reply ar;
        ext_adm_review(&ao, body, size, &ar);
        if (ar.body == NULL)
            continue; /* allocation failure */
        if (ar.status == 200)
            fuzz_check_json("fuzz_protocol (admission)", ar.body, ar.len);
        else if (ar.status != 400 || ar.result != EXT_ADM_ERROR || ar.error[0] == '\0')
            abort(); /* an error without a message, or an unexpected status */
        free(ar.body);
    }
    return 0;
}
