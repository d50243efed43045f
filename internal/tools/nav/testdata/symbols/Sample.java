package sample;

/** A shelf of books. */
public class Shelf {
    private final List<String> books = new ArrayList<>();

    public Shelf() {
        super();
    }

    @Override
    public String toString() {
        return "Shelf{" + books + "}";
    }

    public static <T> List<T> copy(List<T> in)
            throws IOException {
        if (in == null) {
            throw new IOException("null");
        }
        return new ArrayList<>(in);
    }

    interface Visitor {
        void visit(String book);
    }
}
