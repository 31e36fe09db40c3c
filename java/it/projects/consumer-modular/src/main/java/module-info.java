/** A user's modular application: it requires the library's module and nothing else. */
module example.modular {
    requires io.dgen4j;
}
