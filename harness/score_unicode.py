# Generates harness/score_unicode.inc (Unicode tables for score.c):
#   python3 harness/score_unicode.py > harness/score_unicode.inc
# Needs the `regex` module: its \w defines the word characters of the LitM normaliser.
import regex, sys
MAX=0x110000
# word ranges
w=[]
pat=regex.compile(r'\w')
start=None
for c in range(MAX):
    if 0xD800<=c<=0xDFFF: isw=False
    else: isw = pat.match(chr(c)) is not None
    if isw and start is None: start=c
    if not isw and start is not None: w.append((start,c-1)); start=None
if start is not None: w.append((start,MAX-1))
# lower: single mappings
lo=[]; special=[]
for c in range(MAX):
    if 0xD800<=c<=0xDFFF: continue
    l=chr(c).lower()
    if l!=chr(c):
        if len(l)==1: lo.append((c,ord(l)))
        else: special.append((c,l))
# compress into runs: (start,end,delta,stride)
runs=[]
i=0
while i<len(lo):
    c,l=lo[i]; d=l-c
    # try stride 1
    j=i
    while j+1<len(lo) and lo[j+1][0]==lo[j][0]+1 and lo[j+1][1]-lo[j+1][0]==d: j+=1
    k=i
    while k+1<len(lo) and lo[k+1][0]==lo[k][0]+2 and lo[k+1][1]-lo[k+1][0]==d: k+=1
    if k>j:
        runs.append((c,lo[k][0],d,2)); i=k+1
    else:
        runs.append((c,lo[j][0],d,1)); i=j+1
sp=[c for c in range(MAX) if not (0xD800<=c<=0xDFFF) and chr(c).isspace()]
out=sys.stdout
out.write("/* Generated from Python %s (unicodedata %s) and the regex module %s. */\n" % (sys.version.split()[0], __import__('unicodedata').unidata_version, regex.__version__))
out.write("static const struct urange word_ranges[] = {\n")
for a,b in w: out.write("    {0x%X, 0x%X},\n"%(a,b))
out.write("};\n\n/* lower(c) = c + delta for c in [lo, hi] stepping by stride */\n")
out.write("static const struct lrange lower_ranges[] = {\n")
for a,b,d,s in runs: out.write("    {0x%X, 0x%X, %d, %d},\n"%(a,b,d,s))
out.write("};\n\n")
out.write("/* whitespace as Python str.isspace() */\nstatic const unsigned space_chars[] = {")
out.write(", ".join("0x%X"%c for c in sp)); out.write("};\n")
print("special:",[(hex(c),[hex(ord(x)) for x in l]) for c,l in special], file=sys.stderr)
print(len(w),len(runs),len(lo), file=sys.stderr)
import unicodedata
def ranges(pred):
    r=[];start=None
    for c in range(MAX):
        v = (not (0xD800<=c<=0xDFFF)) and pred(c)
        if v and start is None: start=c
        if not v and start is not None: r.append((start,c-1)); start=None
    if start is not None: r.append((start,MAX-1))
    return r
def cased(c):
    s=chr(c); return s.islower() or s.isupper() or s.istitle()
extra={0x27,0x2E,0x3A,0x5E,0x60,0xB7,0x2018,0x2019,0x2024,0xFE52,0xFF07,0xFF0E,0x387,0x5F4,0x2027,0xFE13,0xFE55,0xFF1A}
def ign(c):
    return c in extra or unicodedata.category(chr(c)) in ('Mn','Me','Cf','Lm','Sk')
out.write("\n/* cased letters (final-sigma rule) */\nstatic const struct urange cased_ranges[] = {\n")
for a,b in ranges(cased): out.write("    {0x%X, 0x%X},\n"%(a,b))
out.write("};\n\n/* case-ignorable characters (final-sigma rule) */\nstatic const struct urange case_ignorable_ranges[] = {\n")
for a,b in ranges(ign): out.write("    {0x%X, 0x%X},\n"%(a,b))
out.write("};\n")
