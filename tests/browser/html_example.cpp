// Writes the HTML view of a weights tensor read from a file (any form attn reads, up to
// (B, H, Tq, Tk)), for the browser check: html_example WEIGHTS OUT.html [LABEL...]
// The labels, when given, name both queries and keys (self-attention).
#include <cstdio>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/html_view.hpp"
#include "attn/io.hpp"

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: html_example WEIGHTS OUT.html [LABEL...]\n");
        return 2;
    }
    try {
        const attn::Tensor w = attn::io::read_tensor(argv[1], attn::io::Finite::required, 4);
        attn::viz::HtmlViewOptions o;
        o.title = "attention weights (multi-head example)";
        for (int i = 3; i < argc; ++i) o.query_labels.push_back(argv[i]);
        o.key_labels = o.query_labels;
        o.scale_text = "scale 1/√d";
        attn::io::write_text(argv[2], attn::viz::html_view(w.view(), o));
    } catch (const attn::Error& e) {
        std::fprintf(stderr, "html_example: %s\n", e.what());
        return e.exit_code();
    }
    return 0;
}
