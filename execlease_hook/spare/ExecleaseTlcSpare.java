// A JVM started before its TLC job (execlease_hook/jvm_spare.py): it loads TLC's classes while
// the previous job runs, then reads one job's TLC arguments from stdin, one per line, ended by
// an empty line, and runs tlc2.TLC.main with them in this process, which TLC ends with
// System.exit(its exit code). One job per process: TLC's static state never meets another job.
// Compiled at first use with the JDK's javac into execlease's cache; never committed compiled.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

public final class ExecleaseTlcSpare {
    static final int NO_JOB = 3;           // stdin closed before a whole job arrived: execlease went away
    static final int TLC_RETURNED = 4;     // tlc2.TLC.main returned instead of exiting

    public static void main(String[] argv) throws Throwable {
        ClassLoader loader = ExecleaseTlcSpare.class.getClassLoader();
        Class<?> tlc = Class.forName("tlc2.TLC", false, loader);
        // argv[0], when given: class names to load (not initialise: no static state is touched).
        if (argv.length > 0 && Files.isReadable(Paths.get(argv[0]))) {
            for (String name : Files.readAllLines(Paths.get(argv[0]), StandardCharsets.UTF_8)) {
                try {
                    Class.forName(name.trim(), false, loader);
                } catch (Throwable ignored) {
                    // a name this jar lacks only loses its head start
                }
            }
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<String> args = new ArrayList<>();
        String line;
        while ((line = in.readLine()) != null && !line.isEmpty()) {
            args.add(line);
        }
        if (line == null) {
            System.exit(NO_JOB);
        }
        try {
            tlc.getMethod("main", String[].class).invoke(null, (Object) args.toArray(new String[0]));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        System.exit(TLC_RETURNED);
    }
}
