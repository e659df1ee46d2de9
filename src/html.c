/* --- the HTML page ---
   One self-contained page: tables in plain HTML (readable without JavaScript) and the chunk grid on a
   canvas drawn from compact arrays by a small script (no network, fonts or external files). The page
   head (style and script) is written once; each call is a <section> that hands its data to the
   script, so COLLDIAG_REPORT=html:PATH appends an entry per call to one page per run. Per touched
   chunk the page carries the chunk's index, ranks, elements, address, mode and reason, delta-encoded
   where it helps: about 16 bytes a chunk, 4 MB for 262,144 touched chunks. */

/* Calls drawn when the page opens; the later ones' sections are collapsed (<details>) and draw their
   grid when opened: a page of 10,000 calls opens at once (the summary at its top says so). */
#define CD_HTML_EAGER 100
static int cd_html_lazy; /* the section being written is a collapsed one */

static const char cd_html_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>colldiag report</title>\n<style>\n"
    "body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222}h1{font-size:20px}h2{font-size:17px;margin-top:1.6em}"
    "section{border-top:2px solid #888;margin-top:2em}table{border-collapse:collapse;margin:.5em 0}"
    "td,th{border:1px solid #bbb;padding:2px 8px;text-align:left}th{background:#eee}"
    ".agree{color:#070}.disagree{color:#b00;font-weight:bold}.summary pre{white-space:pre-wrap;background:#f7f7f7;padding:.5em;border:1px solid #ccc}.risk{color:#fff;background:#b00;padding:.3em .5em;font-weight:bold}.grid{display:flex;gap:1.5em;align-items:flex-start}"
    "canvas{border:1px solid #888;image-rendering:pixelated;cursor:crosshair}.legend span{display:inline-block;width:12px;"
    "height:12px;margin:0 4px 0 12px;vertical-align:middle;border:1px solid #888}.info{min-width:22em;font:13px monospace;"
    "white-space:pre;background:#f7f7f7;padding:6px;border:1px solid #ccc}\n</style>\n<script>\n"
    "var CD=[];\n"
    "function cdDec(a){var o=new Array(a.length),v=0;for(var i=0;i<a.length;i++){v+=a[i];o[i]=v;}return o;}\n"
    "function cdFind(d,idx){var lo=0,hi=d.T.length-1;while(lo<=hi){var m=(lo+hi)>>1;if(d.T[m]===idx)return m;"
    "if(d.T[m]<idx)lo=m+1;else hi=m-1;}return -1;}\n"
    "function cdLow(d,idx){var lo=0,hi=d.T.length;while(lo<hi){var m=(lo+hi)>>1;if(d.T[m]<idx)lo=m+1;else hi=m;}return lo;}\n"
    "function cdColor(d,k){if(d.S[k]==='I')return[230,120,40];if(d.O&&d.O[k]>=0){var h=(d.O[k]*0.618034)%1;"
    "return cdHsl(h,0.65,0.45);}var n=d.N[k],f=Math.min(1,(n-1)/Math.max(1,d.P-1));return[Math.round(60-40*f),"
    "Math.round(170-90*f),Math.round(80-40*f)];}\n"
    "function cdHsl(h,s,l){function f(n){var k=(n+h*12)%12,a=s*Math.min(l,1-l);return Math.round(255*(l-a*Math.max(-1,"
    "Math.min(k-3,9-k,1))));}return[f(0),f(8),f(4)];}\n"
    "function cdDims(d){var g=d.G,r=g.length;var rows=r>=2?g[r-2]:1,cols=g[r-1],slices=1;for(var i=0;i<r-2;i++)slices*=g[i];"
    "return{rows:rows,cols:cols,slices:slices,per:rows*cols};}\n"
    "function cdDraw(d){var D=cdDims(d),s=d.slice,img=d.ctx0.createImageData(D.cols,D.rows),px=img.data;"
    "for(var i=0;i<px.length;i+=4){px[i]=232;px[i+1]=232;px[i+2]=232;px[i+3]=255;}"
    "var a=cdLow(d,s*D.per),b=cdLow(d,(s+1)*D.per),drawn=0;for(var k=a;k<b;k++){var c=d.T[k]-s*D.per,q=4*c,col=cdColor(d,k);"
    "px[q]=col[0];px[q+1]=col[1];px[q+2]=col[2];drawn++;}d.ctx0.putImageData(img,0,0);var ctx=d.cv.getContext('2d');"
    "ctx.imageSmoothingEnabled=false;ctx.clearRect(0,0,d.cv.width,d.cv.height);ctx.drawImage(d.off,0,0,d.cv.width,d.cv.height);"
    "var cw=d.cv.width/D.cols,chh=d.cv.height/D.rows;if(cw>=6&&chh>=6){ctx.strokeStyle='#fff';ctx.beginPath();"
    "for(var x=1;x<D.cols;x++){ctx.moveTo(x*cw,0);ctx.lineTo(x*cw,d.cv.height);}for(var y=1;y<D.rows;y++){ctx.moveTo(0,y*chh);"
    "ctx.lineTo(d.cv.width,y*chh);}ctx.stroke();}"
    "d.el.querySelector('.slicelabel').textContent=D.slices>1?('slice '+s+' of '+D.slices+' (leading coordinates '+cdCoords(d,s*D.per).slice(0,d.G.length-2).join(',')+')'):'';"
    "var st=d.el.querySelector('.cd-stats');st.setAttribute('data-drawn',drawn);st.setAttribute('data-slice',s);}\n"
    "function cdCoords(d,idx){var c=[],g=d.G;for(var i=g.length-1;i>=0;i--){c[i]=idx%g[i];idx=Math.floor(idx/g[i]);}return c;}\n"
    "function cdInfo(d,ev){var D=cdDims(d),r=d.cv.getBoundingClientRect();var col=Math.floor((ev.clientX-r.left)/r.width*D.cols),"
    "row=Math.floor((ev.clientY-r.top)/r.height*D.rows);if(col<0||row<0||col>=D.cols||row>=D.rows)return;"
    "cdShow(d,d.slice*D.per+row*D.cols+col);}\n"
    "function cdShow(d,idx){var k=cdFind(d,idx),t='chunk '+idx+' ('+cdCoords(d,idx).join(',')+')\\n';"
    "if(k<0)t+='untouched by this call';else{t+='address   '+d.A[k]+'\\nelements  '+d.E[k]+'\\nranks     '+(d.R[k]>=0?d.R[k]:d.RL[-d.R[k]-1])+"
    "' ('+d.N[k]+')\\nmode      '+(d.S[k]==='C'?'collective':'independent')+(d.O&&d.O[k]>=0?'\\nowner     rank '+d.O[k]:'')+"
    "'\\nwhy       '+d.W[d.Y[k]];}d.el.querySelector('.info').textContent=t;}\n"
    "function cdAdd(d){d.T=cdDec(d.T);d.A=cdDec(d.A);var el=document.getElementById(d.id);d.el=el;d.cv=el.querySelector('canvas');"
    "var D=cdDims(d);d.off=document.createElement('canvas');d.off.width=D.cols;d.off.height=D.rows;d.ctx0=d.off.getContext('2d');"
    "var sc=Math.max(1,Math.floor(Math.min(720/D.cols,480/D.rows)));d.cv.width=Math.max(D.cols*sc,Math.min(D.cols,720));"
    "d.cv.height=Math.max(D.rows*sc,Math.min(D.rows,480));d.slice=0;var rg=el.querySelector('input');"
    "if(D.slices>1){rg.max=D.slices-1;rg.oninput=function(){d.slice=+rg.value;cdDraw(d);};}else rg.style.display='none';"
    "d.cv.onmousemove=function(e){cdInfo(d,e);};d.cv.onclick=function(e){cdInfo(d,e);};var nc=0;for(var k=0;k<d.S.length;k++)"
    "if(d.S[k]==='C')nc++;var st=el.querySelector('.cd-stats');st.setAttribute('data-touched',d.T.length);"
    "st.setAttribute('data-collective',nc);st.setAttribute('data-independent',d.T.length-nc);cdDraw(d);CD.push(d);"
    "var m=/probe=([0-9]+)/.exec(location.hash);if(m){var D2=cdDims(d),pi=+m[1];d.slice=Math.min(D2.slices-1,Math.floor(pi/D2.per));"
    "cdDraw(d);cdShow(d,pi);}}\n"
    "function cdLazy(d){var el=document.getElementById(d.id),det=el.closest('details');det.addEventListener('toggle',function(){"
    "if(det.open&&!d.el)cdAdd(d);});}\n"
    "</script></head><body>\n<h1>colldiag: was it collective, and if not, why?</h1>\n";

static void html_esc(FILE *o, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<') fputs("&lt;", o);
        else if (*s == '>') fputs("&gt;", o);
        else if (*s == '&') fputs("&amp;", o);
        else if (*s == '"') fputs("&quot;", o);
        else fputc(*s, o);
    }
}

/* One touched chunk, merged over the ranks that reported it. */
typedef struct {
    uint64_t idx, nelem;
    MPI_Offset addr;
    int nproc, owner, coll, first, rl; /* rl: -1 single rank (first), else an index into the rank lists */
    int why;
} cd_html_chunk;

typedef struct { uint64_t idx; int rank; uint64_t pos; } cd_html_ref;

static int html_ref_cmp(const void *a, const void *b)
{
    const cd_html_ref *x = a, *y = b;
    if (x->idx != y->idx) return x->idx < y->idx ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* A small string table (reasons, rank lists): linear search is fine, entries are few. Out of memory,
   a string maps to entry 0 (or -1 with none yet), which the page shows as that entry's text. */
typedef struct { char **v; uint64_t n, cap; } cd_strtab;
static int strtab_id(cd_strtab *t, const char *s)
{
    for (uint64_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i], s)) return (int)i;
    size_t l = strlen(s) + 1;
    char *c = cd_malloc(l);
    if (!c || cd_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v)) {
        cd_free(c);
        return t->n ? 0 : -1;
    }
    memcpy(c, s, l);
    t->v[t->n] = c;
    return (int)t->n++;
}
static void strtab_free(cd_strtab *t)
{
    for (uint64_t i = 0; i < t->n; i++) cd_free(t->v[i]);
    cd_free(t->v);
}

static void html_js_strings(FILE *o, const cd_strtab *t)
{
    fputc('[', o);
    for (uint64_t i = 0; i < t->n; i++) {
        if (i) fputc(',', o);
        json_str(o, t->v[i]); /* JSON strings are JavaScript strings; '<' never closes the script: */
    }
    fputc(']', o);
}

/* One chunk grid: every rank's touched chunks merged by index (ds >= 0: dataset ds's only, in a
   multi-dataset call), drawn by the page's script into the element with this id. */
static void report_html_grid(FILE *o, const cd_rep *r, const char *id, int grid_rank, const uint64_t *grid, int chunk_opt, int ds)
{
    /* merge every rank's touched chunks (of dataset ds) by index */
    uint64_t total = 0, nu = 0;
    for (uint64_t i = 0; i < r->off[r->P]; i++) total += ds < 0 || r->ci[i].dataset == ds;
    if (total == 0 && ds >= 0) return;
    cd_html_ref *ref = cd_malloc((size_t)total * sizeof *ref);
    cd_html_chunk *ch = cd_malloc((size_t)total * sizeof *ch);
    cd_strtab why = {0}, rl = {0};
    if (!ref || !ch) {
        fprintf(o, "<p>Out of memory for the chunk grid (%" PRIu64 " chunk entries).</p>\n", total);
        cd_free(ref);
        cd_free(ch);
        return;
    }
    uint64_t nref = 0;
    for (int p = 0; p < r->P; p++)
        for (uint64_t i = r->off[p]; i < r->off[p + 1]; i++)
            if (ds < 0 || r->ci[i].dataset == ds) ref[nref++] = (cd_html_ref){r->ci[i].index, p, i};
    qsort(ref, (size_t)total, sizeof *ref, html_ref_cmp);
    for (uint64_t i = 0; i < total;) {
        uint64_t j = i;
        cd_html_chunk *c = &ch[nu++];
        const colldiag_chunk_info *ci = &r->ci[ref[i].pos];
        memset(c, 0, sizeof *c);
        c->idx = ref[i].idx;
        c->addr = ci->addr;
        c->owner = ci->owner;
        c->coll = ci->collective;
        c->first = ref[i].rank;
        char list[160];
        int ll = 0;
        list[0] = 0;
        for (; j < total && ref[j].idx == c->idx; j++) {
            c->nelem += r->ci[ref[j].pos].nelem;
            if (c->nproc < 8) ll += snprintf(list + ll, sizeof list - (size_t)ll, "%s%d", c->nproc ? "," : "", ref[j].rank);
            c->nproc++;
        }
        if (c->nproc > 8) snprintf(list + ll, sizeof list - (size_t)ll, ",... (%d ranks)", c->nproc);
        c->rl = c->nproc > 1 ? strtab_id(&rl, list) : -1;
        colldiag_chunk_info tmp = *ci;
        tmp.nproc = c->nproc;
        char reason[256];
        chunk_reason(&r->h[ref[i].rank], &tmp, r->P, reason, sizeof reason);
        c->why = strtab_id(&why, reason);
        i = j;
    }
    uint64_t omitted = 0;
    for (int p = 0; p < r->P; p++) omitted += r->h[p].nchunks - r->h[p].sent;
    if (ds >= 0) fprintf(o, "<h3>Chunk grid of dataset %d</h3><p>%" PRIu64 " chunks touched; grid ", ds, nu);
    else fprintf(o, "<h3>Chunk grid</h3><p>%" PRIu64 " chunks touched; grid ", nu);
    for (int d = 0; d < grid_rank; d++) fprintf(o, "%s%" PRIu64, d ? " &times; " : "", grid[d]);
    if (omitted) fprintf(o, "; %" PRIu64 " chunk entries beyond the report's limit are not drawn", omitted);
    fprintf(o, ". Hover or click a chunk for its details.</p>\n<p class=\"legend\"><span style=\"background:rgb(60,170,80)\"></span>collective, "
               "one rank<span style=\"background:rgb(20,80,40)\"></span>collective, all ranks<span style=\"background:rgb(230,120,40)\">"
               "</span>independent<span style=\"background:rgb(232,232,232)\"></span>untouched%s</p>\n",
            chunk_opt == COLLDIAG_MPIO_CHUNK_AGGREGATE ? " (aggregation: one colour per owner rank)" : "");
    fprintf(o, "<div id=\"%s\"><div class=\"grid\"><div><canvas></canvas><br><input type=\"range\" min=\"0\" value=\"0\"> <span class=\"slicelabel\"></span>"
               "</div><div class=\"info\">(chunk details)</div></div>\n<div class=\"cd-stats\" hidden></div></div>\n", id);
    /* the data, for the script: index and address deltas, mode letters, counts, ranks, reasons */
    fprintf(o, "<script>%s({id:\"%s\",P:%d,G:[", cd_html_lazy ? "cdLazy" : "cdAdd", id, r->P);
    for (int d = 0; d < grid_rank; d++) fprintf(o, "%s%" PRIu64, d ? "," : "", grid[d]);
    fprintf(o, "],\nT:[");
    for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%" PRIu64, k ? "," : "", ch[k].idx - (k ? ch[k - 1].idx : 0));
    fprintf(o, "],\nA:[");
    for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%lld", k ? "," : "", (long long)(ch[k].addr - (k ? ch[k - 1].addr : 0)));
    fprintf(o, "],\nS:\"");
    for (uint64_t k = 0; k < nu; k++) fputc(ch[k].coll ? 'C' : 'I', o);
    fprintf(o, "\",\nN:[");
    for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%d", k ? "," : "", ch[k].nproc);
    fprintf(o, "],\nE:[");
    for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%" PRIu64, k ? "," : "", ch[k].nelem);
    fprintf(o, "],\nR:[");
    for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%d", k ? "," : "", ch[k].rl < 0 ? ch[k].first : -ch[k].rl - 1);
    fprintf(o, "],\nY:[");
    for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%d", k ? "," : "", ch[k].why);
    fprintf(o, "],\n");
    if (chunk_opt == COLLDIAG_MPIO_CHUNK_AGGREGATE) {
        fprintf(o, "O:[");
        for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%d", k ? "," : "", ch[k].owner);
        fprintf(o, "],\n");
    }
    fprintf(o, "RL:");
    html_js_strings(o, &rl);
    fprintf(o, ",\nW:");
    html_js_strings(o, &why);
    fprintf(o, "});</script>\n");
    strtab_free(&why);
    strtab_free(&rl);
    cd_free(ref);
    cd_free(ch);
}

static void report_html_section(FILE *o, const cd_rep *r, const colldiag_xfer *x, const char *title, const char *verdict, int seq)
{
    const cd_rep_hdr *h0 = &r->h[0];
    cd_html_lazy = seq >= CD_HTML_EAGER;
    fprintf(o, "<section id=\"cd%d\"%s>\n%s<h2>", seq, x && x->risk_bytes ? " class=\"at-risk\"" : "", cd_html_lazy ? "<details><summary>" : "");
    if (x && x->risk_bytes) fprintf(o, "&#9888; ");
    html_esc(o, title && *title ? title : "colldiag call");
    fprintf(o, "</h2>%s\n", cd_html_lazy ? "</summary>" : "");
    if (verdict && *verdict) {
        fprintf(o, "<p class=\"%s\">", strstr(verdict, "DISAGREE") ? "disagree" : "agree");
        html_esc(o, verdict);
        fprintf(o, "</p>\n");
    }
    if (x && x->risk_bytes) { /* the call is marked: HDF5's path would not leave the file as the program wrote it */
        fprintf(o, "<p class=\"risk\">Bytes at risk: %" PRIu64 " (", x->risk_bytes);
        html_esc(o, x->risk_why);
        fprintf(o, "). To keep them: ");
        html_esc(o, x->risk_adv);
        fprintf(o, "</p>\n");
    }
    fprintf(o, "<table><tr><th>ranks</th><td>%d</td></tr><tr><th>chunk optimisation</th><td>%s</td></tr><tr><th>why</th><td>", r->P,
            colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)h0->chunk_opt));
    html_esc(o, h0->reason[0] ? h0->reason : "(no transfer yet)");
    fprintf(o, "</td></tr>");
    if (x && x->auto_est[0] >= 0)
        fprintf(o, "<tr><th>AUTO's estimates</th><td>link %.3g s, multi %.3g s, aggregation %.3g s, independent %.3g s (the least was chosen)</td></tr>",
                x->auto_est[0], x->auto_est[1], x->auto_est[2], x->auto_est[3]);
    fprintf(o, "</table>\n<table class=\"ranks\"><tr><th>rank</th><th>chunk_opt</th><th>io_mode</th><th>local cause</th><th>global cause</th>"
               "<th>bytes coll.</th><th>bytes ind.</th><th>calls coll.</th><th>calls ind.</th><th>map ms</th><th>decide ms</th><th>io ms</th>"
               "<th>chunks</th></tr>\n");
    for (int p = 0; p < r->P; p++) {
        const cd_rep_hdr *h = &r->h[p];
        fprintf(o, "<tr class=\"rank\"><td>%d</td><td>%s</td><td>%s</td><td>0x%x</td><td>0x%x</td><td>%" PRIu64 "</td><td>%" PRIu64
                   "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%" PRIu64 "</td></tr>\n",
                p, colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)h->chunk_opt),
                colldiag_io_mode_name((colldiag_actual_io_mode_t)h->io_mode), h->local, h->global, h->cnt.bytes_collective,
                h->cnt.bytes_independent, h->cnt.calls_collective, h->cnt.calls_independent, 1e3 * h->cnt.t_map, 1e3 * h->cnt.t_decide,
                1e3 * h->cnt.t_io, h->nchunks);
    }
    fprintf(o, "</table>\n<p>");
    uint32_t seen = 0;
    for (int p = 0; p < r->P; p++) seen |= r->h[p].local;
    if (!seen) fprintf(o, "Causes: none, collective I/O was possible.");
    for (uint32_t bit = 1; bit; bit <<= 1) {
        if (!(seen & bit)) continue;
        char cs[256];
        colldiag_cause_string(bit, cs, sizeof cs);
        fprintf(o, "Cause 0x%x (", bit);
        html_esc(o, cs);
        fprintf(o, ") raised by rank");
        int k = 0;
        for (int p = 0; p < r->P && k < 32; p++)
            if (r->h[p].local & bit) fprintf(o, "%s%d", k++ ? "," : "s ", p);
        fprintf(o, "%s.<br>", k >= 32 ? ",..." : "");
    }
    report_sel_io(r, o, 1);
    report_filt(r, o, 1);
    fprintf(o, "</p>\n");
    if (r->nds && x && x->nds == r->nds) { /* a multi-dataset call: the datasets, then one grid per chunked dataset */
        fprintf(o, "<h3>%" PRIu64 " datasets in this call</h3><table class=\"datasets\"><tr><th>dataset</th><th>rank</th><th>chunk_opt</th>"
                   "<th>io_mode</th><th>local cause</th><th>global cause</th></tr>\n", r->nds);
        for (uint64_t d = 0; d < r->nds; d++) {
            int same = 1;
            for (int p = 1; p < r->P; p++) same &= !memcmp(&r->ds[(uint64_t)p * r->nds + d], &r->ds[d], sizeof r->ds[d]);
            for (int p = 0; p < (same ? 1 : r->P); p++) {
                const cd_rep_ds *b = &r->ds[(uint64_t)p * r->nds + d];
                char who[16];
                snprintf(who, sizeof who, "%d", p);
                fprintf(o, "<tr class=\"dataset\"><td>%" PRIu64 "</td><td>%s</td><td>%s</td><td>%s</td><td>0x%x</td><td>0x%x</td></tr>\n", d,
                        same ? "every" : who, colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)b->chunk_opt),
                        colldiag_io_mode_name((colldiag_actual_io_mode_t)b->io_mode), b->local, b->global);
            }
        }
        fprintf(o, "</table>\n");
        for (uint64_t d = 0; d < r->nds; d++) {
            const cd_dsres *ds = &x->dsr[d];
            if (ds->grid_rank < 1) continue;
            char id[48];
            snprintf(id, sizeof id, "cd%d_ds%" PRIu64, seq, d);
            report_html_grid(o, r, id, ds->grid_rank, ds->grid, r->ds[d].chunk_opt, (int)d);
        }
        fprintf(o, "%s</section>\n", cd_html_lazy ? "</details>" : "");
        return;
    }
    if (h0->grid_rank < 1) { fprintf(o, "<p>Not chunked: no chunk grid.</p>%s</section>\n", cd_html_lazy ? "</details>" : ""); return; }
    char id[32];
    snprintf(id, sizeof id, "cd%d_grid", seq);
    report_html_grid(o, r, id, h0->grid_rank, h0->grid, h0->chunk_opt, -1);
    fprintf(o, "%s</section>\n", cd_html_lazy ? "</details>" : "");
}

/* head: write the page head first (a new page); title/verdict: the call's heading and, from the HDF5
   preload, HDF5's verdict. Collective; rank 0 writes. */
static int report_html(colldiag_file *f, const colldiag_xfer *x, FILE *out, int head, const char *title, const char *verdict)
{
    static const char fn[] = "colldiag_report_html";
    static int seq;
    cd_rep r;
    int rc = report_gather(f, x, fn, &r);
    if (rc || f->rank != 0 || !out) { report_free(&r); return rc; }
    if (head) fputs(cd_html_head, out);
    report_html_section(out, &r, x, title, verdict, seq++);
    if (head) fputs("</body></html>\n", out);
    fflush(out);
    report_free(&r);
    return 0;
}

int colldiag_report_html(colldiag_file *f, const colldiag_xfer *x, FILE *out)
{
    return report_html(f, x, out, 1, NULL, NULL);
}

/* COLLDIAG_REPORT=html:PATH: the page head when PATH is new or empty, then one section per call. */
static void html_append(colldiag_file *f, const colldiag_xfer *x, const char *path, const char *title, const char *verdict)
{
    FILE *out = NULL;
    int fresh = 0;
    if (f->rank == 0 && path) {
        out = fopen(path, "a");
        if (out) {
            fseek(out, 0, SEEK_END);
            fresh = ftell(out) == 0;
            if (fresh) fputs(cd_html_head, out);
        }
    }
    report_html(f, x, out, 0, title, verdict);
    if (out) fclose(out);
}
