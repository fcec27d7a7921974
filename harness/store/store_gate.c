/*
 * dipmap gate's rounds in the store (schema 8, table gate_rounds): one row per
 * (gate, round) holding the round's state as JSON, so a killed gate resumes
 * from its last recorded round.
 */
#include <stdlib.h>
#include <string.h>

#include "store/store-int.h"
#include "base/strvec.h"
#include "base/usage.h"
#include "base/utc.h"

#include "base/banned.h"

int store_gate_round_put(struct store *st, const char *gate, long round, const char *state_json)
{
    sqlite3_stmt *s = NULL;
    int rc;
    if (store_need_writable(st))
        return -1;
    if (sqlite3_prepare_v2(st->db,
                           "INSERT OR REPLACE INTO gate_rounds (gate, round, state_json, "
                           "created_at) VALUES (?1, ?2, ?3, ?4)",
                           -1, &s, NULL) != SQLITE_OK)
        return store_db_error(st, "cannot record the gate's round");
    store_bind_text(s, 1, gate);
    sqlite3_bind_int64(s, 2, round);
    store_bind_text(s, 3, state_json);
    store_bind_time(s, 4, utc_now());
    rc = sqlite3_step(s) == SQLITE_DONE ? 0 : store_db_error(st, "cannot record the gate's round");
    sqlite3_finalize(s);
    return rc;
}

int store_gate_rounds(struct store *st, const char *gate, struct strvec *out)
{
    sqlite3_stmt *s = NULL;
    int n = 0, rc;
    if (st->version < 8)
        return 0;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT round, state_json FROM gate_rounds WHERE gate = ?1 ORDER BY "
                           "round",
                           -1, &s, NULL) != SQLITE_OK)
        return store_db_error(st, "cannot read the gate's rounds");
    store_bind_text(s, 1, gate);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 1);
        if (sqlite3_column_int64(s, 0) != n + 1 || !t)
            break;
        strvec_push(out, (const char *)t);
        n++;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        n = store_db_error(st, "cannot read the gate's rounds");
    sqlite3_finalize(s);
    return n;
}
