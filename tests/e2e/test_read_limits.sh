# Readers read only what they need: attn ls reads each npz member's .npy header, never its
# data (a zip bomb lists at once, in little memory), and a regular file over the 2 GiB input
# limit is refused from its size, before a byte is read.
# Under a sanitizer build (ATTN_SANITIZER set) the ulimit -v checks are skipped: ASan
# reserves terabytes of address space.

# ---- attn ls of a 12.5 MB npz whose 6 members each inflate to 2 GiB of zeros -------------
# (tests/tools/make_npz_bomb.py writes it with Python's zlib; numpy.load(f).files is instant.)
if command -v python3 >/dev/null; then
    python3 "$ROOT/tests/tools/make_npz_bomb.py" "$T/bomb.npz"
    start=$(date +%s%N)
    if [ -z "${ATTN_SANITIZER:-}" ]; then
        ( ulimit -v 300000; exec timeout 20 "$ATTN" ls "$T/bomb.npz" ) >"$T/out" 2>"$T/err"; CODE=$?
    else
        timeout 60 "$ATTN" ls "$T/bomb.npz" >"$T/out" 2>"$T/err"; CODE=$?
    fi
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    ERR=$(cat "$T/err")
    expect_code 0 "ls of the npz bomb (under ulimit -v 300 MB)"
    # 536870880 = (2^31 - 128) / 4 float32 zeros per member, as the script declares.
    if [ "$(grep -c '^m[0-5]  *float32  *(536870880,)$' "$T/out")" -eq 6 ]; then pass
    else fail "ls of the npz bomb: expected m0..m5 float32 (536870880,); got: $(head -c 300 "$T/out")"; fi
    # Six headers take milliseconds; inflating the members took 90 s and 2.1 GB. The bound is
    # loose (a loaded machine or a sanitizer build is slow) but far from inflating anything.
    if [ "$ms" -lt 10000 ]; then pass; else fail "ls of the npz bomb took $ms ms (headers only: expected well under 10 s; inflating takes 90 s)"; fi
    rm -f "$T/bomb.npz"
    # Reading a member checks its header against the member's size before inflating it: a
    # (1, 1) header on 2 GiB of zeros took 7 s and 2 GiB before it was refused.
    python3 "$ROOT/tests/tools/make_npz_bomb.py" "$T/lie.npz" 1 $(((1 << 29) - 32)) "1, 1"
    for how in file stdin; do  # 2^31 bytes: 128 of header, 4 of data, the rest unexpected
        if [ -z "${ATTN_SANITIZER:-}" ]; then
            if [ $how = file ]; then ( ulimit -v 300000; exec timeout 20 "$ATTN" softmax "$T/lie.npz" ) >"$T/out" 2>"$T/err"
            else ( ulimit -v 300000; exec timeout 20 "$ATTN" softmax - <"$T/lie.npz" ) >"$T/out" 2>"$T/err"; fi
            CODE=$?
        else
            timeout 60 "$ATTN" softmax "$T/lie.npz" >"$T/out" 2>"$T/err"; CODE=$?
        fi
        ERR=$(cat "$T/err")
        expect_code 3 "a lying npz member's header, from $how (under ulimit -v 300 MB)"
        expect_err_has "2147483516 unexpected bytes after the array data" "the lie is named, from $how"
    done
    rm -f "$T/lie.npz"
fi

# ---- a regular .npy over 2 GiB: refused from its size (a sparse file: no disk used) --------
# A valid header for (536870913,) float32: 2 GiB + 4 bytes of data.
hdr="{'descr': '<f4', 'fortran_order': False, 'shape': (536870913,), }"
{ printf '\223NUMPY\001\000\166\000%s' "$hdr"; printf '%*s\n' $((117 - ${#hdr})) ''; } > "$T/big.npy"
truncate -s $((128 + 4 * 536870913)) "$T/big.npy"
for via in file stdin; do
    # (an array, not set --: this file is sourced, and run.sh's own arguments must stay)
    if [ "$via" = file ]; then args=(softmax "$T/big.npy"); name=$T/big.npy; else args=(softmax -); name="<stdin>"; fi
    if [ -z "${ATTN_SANITIZER:-}" ]; then
        ( ulimit -v 1000000; exec timeout 20 "$ATTN" "${args[@]}" ) <"$T/big.npy" >"$T/out" 2>"$T/err"; CODE=$?
    else
        timeout 60 "$ATTN" "${args[@]}" <"$T/big.npy" >"$T/out" 2>"$T/err"; CODE=$?
    fi
    ERR=$(cat "$T/err")
    expect_code 3 ".npy over 2 GiB ($via)"
    expect_err_has "attn: $name: input larger than 2 GiB is not supported" ".npy over 2 GiB ($via): the limit, not out of memory"
    expect_out_empty ".npy over 2 GiB ($via)"
done
# ... and through a pipe, whose size nothing tells: refused from the header, before the data (it
# read 2 GiB of the stream first: 4.6 s and 4 GB)
head -c 128 "$T/big.npy" > "$T/big_header.npy"
if [ -z "${ATTN_SANITIZER:-}" ]; then
    ( ulimit -v 1000000; cat "$T/big_header.npy" /dev/zero 2>/dev/null | timeout 20 "$ATTN" softmax - ) >"$T/out" 2>"$T/err"
else
    (cat "$T/big_header.npy" /dev/zero 2>/dev/null | timeout 60 "$ATTN" softmax -) >"$T/out" 2>"$T/err"
fi
CODE=$?; ERR=$(cat "$T/err")
expect_code 3 ".npy header over 2 GiB on a pipe"
expect_err_has "attn: <stdin>: its .npy header declares 2147483780 bytes: input larger than 2 GiB is not supported" \
    ".npy header over 2 GiB on a pipe: refused from the header"
rm -f "$T/big.npy" "$T/big_header.npy"

# ---- a safetensors tensor over 2 GiB (sparse): refused as an input, the file still listed --
# (it was read whole, 2 copies: 5 GiB took 12.8 s and 10.5 GB). 536870913 float32: 2 GiB + 4.
st_hdr='{"big":{"dtype":"F32","shape":[536870913],"data_offsets":[0,2147483652]}}'
while [ $((${#st_hdr} % 8)) -ne 0 ]; do st_hdr+=' '; done
# shellcheck disable=SC2059 # the header length's 8 little-endian bytes, as printf escapes
{ printf "$(printf '\\x%02x\\x00\\x00\\x00\\x00\\x00\\x00\\x00' "${#st_hdr}")"; printf '%s' "$st_hdr"; } > "$T/big.safetensors"
truncate -s $((8 + ${#st_hdr} + 2147483652)) "$T/big.safetensors"
run ls "$T/big.safetensors"
expect_code 0 "ls of a safetensors file holding a tensor over 2 GiB"
run concat "$T/big.safetensors:big" --format npy -o "$T/big_out.npy"
expect_code 3 "a safetensors tensor over 2 GiB as an input"
expect_err_has "big.safetensors:big: 2147483652 bytes: a tensor larger than 2 GiB is not supported as an input" \
    "a safetensors tensor over 2 GiB: the limit named"
rm -f "$T/big.safetensors" "$T/big_out.npy"

# ---- an npz with a stored member over 2 GiB (sparse): listed, its other members read -------
# The member's header says (536870913,) float32: 2 GiB + 4 bytes of data, past the input limit
# only when read (it was refused on listing, and with it the whole archive).
le16() { printf "\\$(printf %03o $(($1 & 255)))\\$(printf %03o $((($1 >> 8) & 255)))"; }
le32() { le16 $(($1 & 65535)); le16 $((($1 >> 16) & 65535)); }
local_header() {  # NAME CRC SIZE: a stored member's local header
    le32 $((0x04034b50)); le16 20; le16 0; le16 0; le32 0; le32 "$2"; le32 "$3"; le32 "$3"; le16 ${#1}; le16 0
    printf '%s' "$1"
}
central_entry() {  # NAME CRC SIZE OFFSET
    le32 $((0x02014b50)); le16 20; le16 20; le16 0; le16 0; le32 0; le32 "$2"; le32 "$3"; le32 "$3"
    le16 ${#1}; le16 0; le16 0; le16 0; le16 0; le32 0; le32 "$4"; printf '%s' "$1"
}
npy_header() {  # SHAPE: a 128-byte .npy v1.0 header of float32
    local h="{'descr': '<f4', 'fortran_order': False, 'shape': $1, }"
    printf '\223NUMPY\001\000\166\000%s' "$h"; printf '%*s\n' $((117 - ${#h})) ''
}
{ npy_header '(3,)'; printf '\000\000\200\077\000\000\000\100\000\000\100\100'; } >"$T/small.npy"  # 1, 2, 3
small_crc=$(gzip -c "$T/small.npy" | tail -c 8 | od -An -tu4 -N4 | tr -d ' ')
big_size=$((128 + 4 * 536870913))
{ local_header big.npy 0 $big_size; npy_header '(536870913,)'; } >"$T/bigmember.npz"
truncate -s $((37 + big_size)) "$T/bigmember.npz"
small_at=$((37 + big_size))
{ local_header small.npy "$small_crc" 140; cat "$T/small.npy"; } >>"$T/bigmember.npz"
cd_at=$((small_at + 39 + 140))
{ central_entry big.npy 0 $big_size 0; central_entry small.npy "$small_crc" 140 $small_at; } >"$T/cd"
{ cat "$T/cd"; le32 $((0x06054b50)); le16 0; le16 0; le16 2; le16 2; le32 "$(stat -c %s "$T/cd")"; le32 $cd_at; le16 0; } \
    >>"$T/bigmember.npz"
run ls "$T/bigmember.npz"
expect_code 0 "ls of an npz with a member over 2 GiB"
expect_out_has "(536870913,)" "ls of an npz with a member over 2 GiB lists it"
run softmax "$T/bigmember.npz:small"
expect_code 0 "another member of an npz with a member over 2 GiB"
expect_out_has "0.0900305733,0.244728476,0.665240943" "another member of an npz with a member over 2 GiB"
run softmax "$T/bigmember.npz:big"
expect_code 3 "reading an npz member over 2 GiB"
expect_err_has "zip member 'big.npy' is larger than 2 GiB" "reading an npz member over 2 GiB"
rm -f "$T/bigmember.npz" "$T/cd" "$T/small.npy"

# One result of a text file of 100,000 (csv blocks under "# draw N" headings) is found in one
# pass: each heading searched the list of names seen before it (18 s; a million: minutes).
# Found by a resource-limits audit.
"$ATTN" random --seed 0 --shape 1,2 --count 100000 -o "$T/draws.csv"
timeout 20 "$ATTN" softmax "$T/draws.csv:draw 99999" --format csv >"$T/out" 2>"$T/err"; CODE=$?
expect_code 0 "one result of 100,000 by name"

# The Tq x Tk weights of 400,000 one-token batch items: linear in the items (36 s, growing with
# their square: a search of K's slots per item, and the online-core count read from /sys on
# every parallel_for). Found by a resource-limits audit.
"$ATTN" random --seed 1 --shape 400000,1,4 --format npy -o "$T/many.npy"
timeout 20 "$ATTN" attend -x "$T/many.npy" --show weights --format npy -o "$T/many_w.npy" 2>"$T/err"; CODE=$?
expect_code 0 "weights of 400,000 batch items"
